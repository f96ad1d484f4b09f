#include "engine/tavlei/module.h"

#include "engine/tavlei/encoder.h"
#include "engine/tavlei/heuristic.h"
#include "engine/tavlei/symmetry.h"
#include "engine/tavlei/tavlei_game.h"
#include "engine/tavlei/tavlei_prover.h"
#include "engine/util/strings.h"

namespace volkhv::tavlei {

GameModule Module(const std::string& variant) {
  const int width = variant == "tavlei9" ? 9 : 11;
  GameModule m;
  m.name = variant;
  m.make_game = [variant](const GameOptions& options) {
    return MakeTavleiGame(variant, options);
  };
  m.options = {{"prince_max_steps", 0, 100, 0,
                "Tavlei: the prince/king moves at most N squares "
                "(0 = unlimited)"}};
  m.make_encoder = [width](const GameInfo& game, const EncoderOptions&)
      -> absl::StatusOr<std::unique_ptr<Encoder>> {
    if (game.board_width != width || game.board_height != width) {
      return absl::InvalidArgumentError(
          Cat("encoder: ", game.name, " with a ", game.board_width, "x",
              game.board_height, " board (expected ", width, "x", width, ")"));
    }
    return std::make_unique<TavleiEncoder>(width);
  };
  m.make_heuristic = [](const GameInfo& game) -> std::unique_ptr<Heuristic> {
    return std::make_unique<TavleiHeuristic>(game.name);
  };
  m.symmetries = SquareSymmetries;
  m.prover = &TavleiProver();
  m.bench_positions = {{"start", "", 4}};
  const std::string king = variant == "tavlei9" ? "prince" : "king";
  m.terminations = {
      {kNoLegalMoves, "no legal move", "", "",
       "{loser} cannot move: {winner} win"},
      {kKingCaptured, "king captured", "", "",
       Cat("The ", king, " is captured: {winner} win")},
      {kKingEscaped, "king escaped", "", "",
       Cat("The ", king, " escapes: {winner} win")},
  };
  return m;
}

}  // namespace volkhv::tavlei
