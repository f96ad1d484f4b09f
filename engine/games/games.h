// The registry of games: makes a Game by name. The only place (besides the
// CLI) that knows which games exist.
#ifndef VOLKHV_ENGINE_GAMES_GAMES_H_
#define VOLKHV_ENGINE_GAMES_GAMES_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/game/prover.h"

namespace volkhv {

// "tavreli", "tavlei9", "tavlei11".
std::vector<std::string_view> GameNames();

// Errors name the unknown game or option.
absl::StatusOr<std::unique_ptr<Game>> MakeGame(std::string_view name,
                                               const GameOptions& options = {});

// The tactics prover of `game` for the search (engine/game/prover.h), or
// nullptr for a game without one. Valid for the program's life; thread-safe.
const Prover* GameProver(const Game& game);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAMES_GAMES_H_
