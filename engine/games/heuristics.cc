#include "engine/games/heuristics.h"

#include "engine/game/strings.h"
#include "engine/tavlei/heuristic.h"
#include "engine/tavreli/heuristic.h"

namespace volkhv {

absl::StatusOr<std::unique_ptr<Heuristic>> MakeHeuristic(const GameInfo& game) {
  if (game.name == "tavreli") {
    return std::make_unique<tavreli::TavreliHeuristic>();
  }
  if (game.name == "tavlei9" || game.name == "tavlei11") {
    return std::make_unique<tavlei::TavleiHeuristic>(game.name);
  }
  return absl::InvalidArgumentError(
      Cat("no alpha-beta evaluation for the game '", game.name, "'"));
}

}  // namespace volkhv
