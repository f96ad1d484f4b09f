#include "engine/games/games.h"

#include "engine/game/strings.h"
#include "engine/tavlei/tavlei_game.h"
#include "engine/tavlei/tavlei_prover.h"
#include "engine/tavreli/tavreli_game.h"

namespace volkhv {

std::vector<std::string_view> GameNames() {
  return {"tavreli", "tavlei9", "tavlei11"};
}

absl::StatusOr<std::unique_ptr<Game>> MakeGame(std::string_view name,
                                               const GameOptions& options) {
  if (name == "tavreli") return tavreli::MakeTavreliGame(options);
  if (name == "tavlei9" || name == "tavlei11") {
    return MakeTavleiGame(name, options);
  }
  return absl::InvalidArgumentError(Cat(
      "unknown game '", name, "' (known: ", "tavreli, tavlei9, tavlei11", ")"));
}

const Prover* GameProver(const Game& game) {
  const std::string_view name = game.Info().name;
  if (name == "tavlei9" || name == "tavlei11") return &TavleiProver();
  return nullptr;
}

}  // namespace volkhv
