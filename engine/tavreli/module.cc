#include "engine/tavreli/module.h"

#include "engine/tavreli/encoder.h"
#include "engine/tavreli/heuristic.h"
#include "engine/tavreli/tavreli_game.h"
#include "engine/tavreli/tavreli_prover.h"
#include "engine/util/strings.h"

namespace volkhv::tavreli {
namespace {

// A middlegame from the published games (Karpov - Kupreichik, Moscow 1997,
// after 14 moves): towers of up to 7 pieces, 211 legal moves.
constexpr char kStackedMiddlegame[] =
    "(PRR)nb1k3/1(pnpr~r)1pq1pb(pnbB)1/8/1(NpbnPNprrQ)6/4(phq)3/2PQ1PHN2/"
    "2PB2PBPNPR/4KB1R w K - 1 15";

}  // namespace

GameModule Module() {
  GameModule m;
  m.name = "tavreli";
  m.make_game = MakeTavreliGame;
  m.make_encoder = [](const GameInfo& game, const EncoderOptions& options)
      -> absl::StatusOr<std::unique_ptr<Encoder>> {
    return std::make_unique<TavreliEncoder>(options.stack_layers);
  };
  m.make_heuristic = [](const GameInfo&) -> std::unique_ptr<Heuristic> {
    return std::make_unique<TavreliHeuristic>();
  };
  m.prover = &TavreliProver();
  m.bench_positions = {{"start", "", 5},
                       {"stacked middlegame", kStackedMiddlegame, 4}};
  m.terminations = {
      {kCheckmate, "checkmate", "", "checkmate", "Checkmate: {winner} wins"},
      {kStalemate, "stalemate", "", "stalemate", "Stalemate: draw"},
      {kFiftyMoves, "fifty-move rule", "fifty moves", "",
       "Draw by the fifty-move rule"},
  };
  return m;
}

}  // namespace volkhv::tavreli
