// The registry of hand-written evaluations (engine/game/heuristic.h) for the
// alpha-beta baseline: one per game, chosen by the game's name.
#ifndef VOLKHV_ENGINE_GAMES_HEURISTICS_H_
#define VOLKHV_ENGINE_GAMES_HEURISTICS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/game/heuristic.h"

namespace volkhv {

// The heuristic of `game` ("tavreli", "tavlei9", "tavlei11"); an error names
// a game without one. The result is immutable and thread-safe.
absl::StatusOr<std::unique_ptr<Heuristic>> MakeHeuristic(const GameInfo& game);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAMES_HEURISTICS_H_
