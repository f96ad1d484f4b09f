// The Tavlei games (tavlei9, tavlei11) behind the game-neutral interface.
#ifndef VOLKHV_ENGINE_TAVLEI_TAVLEI_GAME_H_
#define VOLKHV_ENGINE_TAVLEI_TAVLEI_GAME_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/game/game.h"

namespace volkhv {

// Makes "tavlei9" or "tavlei11". Options: "prince_max_steps" (0 = unlimited,
// the default; N > 0 = the prince/king moves at most N squares). Errors name
// the unknown variant, unknown option key or negative value. Thread-safe.
// The Game is immutable and thread-safe; its GameStates follow game.h (one
// thread at a time each) and stay valid after the Game is destroyed.
absl::StatusOr<std::unique_ptr<Game>> MakeTavleiGame(
    std::string_view name, const GameOptions& options);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_TAVLEI_TAVLEI_GAME_H_
