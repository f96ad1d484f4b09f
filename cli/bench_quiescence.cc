// `volkhv bench quiescence`: how far the leaves' quiescence
// (AlphaBetaSearch::QuiescenceScore, the leaf_quiescence_* search
// parameters) lands from a much deeper one, and how fast it is, over leaves
// taken from recorded games: the children of their positions, as a search
// meets them.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/game_setup.h"
#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "engine/search/alphabeta.h"

namespace volkhv::cli {
namespace {

// Noisy plies, then plies of recaptures only: "3+8".
struct Depths {
  int plies = 0;
  int recaptures = 0;
};

absl::StatusOr<Depths> ParseDepths(const std::string& option,
                                   const std::string& text) {
  const std::vector<std::string> parts = absl::StrSplit(text, '+');
  Depths d;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &d.plies) ||
      !absl::SimpleAtoi(parts[1], &d.recaptures) || d.plies < 0 ||
      d.recaptures < 0 || d.plies > 32 || d.recaptures > 32) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "option '--%s': '%s' is not PLIES+RECAPTURES (each 0..32, e.g. 3+8)",
        option, text));
  }
  return d;
}

// From ply 10 on, every third position of each game; of each, every
// seventh legal move's child that is not over. At most `max_leaves`.
absl::StatusOr<std::vector<std::unique_ptr<GameState>>> LeavesOf(
    const Game& game, const std::vector<RecordedGame>& games,
    size_t max_leaves) {
  std::vector<std::unique_ptr<GameState>> leaves;
  for (const RecordedGame& record : games) {
    std::unique_ptr<GameState> state = game.NewInitialState();
    int ply = 0;
    for (const std::string& text : record.moves) {
      const absl::StatusOr<Move> move = state->ParseMove(text);
      if (!move.ok()) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "game at line %d, ply %d ('%s'): %s", record.first_line, ply + 1,
            text, move.status().message()));
      }
      state->Play(*move);
      ++ply;
      if (ply < 10 || ply % 3 != 0 || state->Result().IsOver()) continue;
      MoveList moves;
      state->LegalMoves(&moves);
      for (int i = 0; i < moves.size() && leaves.size() < max_leaves; i += 7) {
        std::unique_ptr<GameState> child = state->Clone();
        child->Play(moves[i]);
        if (!child->Result().IsOver()) leaves.push_back(std::move(child));
      }
      if (leaves.size() >= max_leaves) return leaves;
    }
  }
  return leaves;
}

// The quiescence score of every leaf, and the seconds it took.
std::pair<std::vector<int>, double> Score(
    const Heuristic& heuristic, Depths depths,
    const std::vector<std::unique_ptr<GameState>>& leaves) {
  search::AlphaBetaOptions options;
  options.hash_mb = 1;
  options.quiescence_plies = depths.plies;
  options.recapture_plies = depths.recaptures;
  search::AlphaBetaSearch search(&heuristic, options);
  std::vector<int> scores;
  const auto start = std::chrono::steady_clock::now();
  for (const std::unique_ptr<GameState>& leaf : leaves) {
    scores.push_back(search.QuiescenceScore(leaf.get()));
  }
  return {scores, std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count()};
}

}  // namespace

int BenchQuiescence(const std::vector<std::string>& args) {
  constexpr char kName[] = "bench quiescence";
  std::vector<OptionSpec> specs = GameOptionSpecs();
  specs.push_back({"game-file", "FILE", "",
                   "recorded games (game file format) whose positions' "
                   "children are the leaves"});
  specs.push_back({"depths", "LIST", "2+0,3+0,4+0,6+0,8+0,3+8,4+8",
                   "comma-separated PLIES+RECAPTURES to measure "
                   "(leaf_quiescence_plies + leaf_quiescence_recaptures)"});
  specs.push_back({"reference", "PLIES+RECAPTURES", "12+12",
                   "the deep quiescence the others are compared with"});
  specs.push_back({"scale", "CP", "300",
                   "leaf_quiescence_scale: the error of tanh(q / CP) is "
                   "reported too"});
  specs.push_back({"max-leaves", "N", "3000", "leaves at most"});
  specs.push_back({"help", "", "", "print this help"});
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 0);
  if (!cl.ok()) return Fail(kName, cl.status(), kExitUsage);
  if (cl->Flag("help")) {
    std::cout << "usage: volkhv bench quiescence --game-file FILE [--game G] "
                 "[--depths LIST] [--reference P+R]\n"
              << OptionsHelp(specs);
    return kExitOk;
  }
  if (!cl->Given("game-file")) {
    return Fail(kName, absl::InvalidArgumentError("--game-file is required"),
                kExitUsage);
  }
  absl::StatusOr<int> max_leaves = cl->GetInt("max-leaves", 1, 1000000);
  if (!max_leaves.ok()) return Fail(kName, max_leaves.status(), kExitUsage);
  absl::StatusOr<double> scale = cl->GetDouble("scale", 1, 1e5);
  if (!scale.ok()) return Fail(kName, scale.status(), kExitUsage);
  absl::StatusOr<Depths> reference =
      ParseDepths("reference", cl->Get("reference"));
  if (!reference.ok()) return Fail(kName, reference.status(), kExitUsage);
  std::vector<Depths> depths;
  const std::vector<std::string> texts = absl::StrSplit(cl->Get("depths"), ',');
  for (const std::string& text : texts) {
    absl::StatusOr<Depths> d = ParseDepths("depths", text);
    if (!d.ok()) return Fail(kName, d.status(), kExitUsage);
    depths.push_back(*d);
  }
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail(kName, game.status(), kExitUsage);
  absl::StatusOr<std::unique_ptr<Heuristic>> heuristic =
      MakeHeuristic((*game)->Info());
  if (!heuristic.ok()) return Fail(kName, heuristic.status(), kExitUsage);
  absl::StatusOr<std::vector<RecordedGame>> games =
      ReadGameFile(cl->Get("game-file"));
  if (!games.ok()) return Fail(kName, games.status(), kExitInvalidInput);
  absl::StatusOr<std::vector<std::unique_ptr<GameState>>> leaves =
      LeavesOf(**game, *games, static_cast<size_t>(*max_leaves));
  if (!leaves.ok()) return Fail(kName, leaves.status(), kExitInvalidInput);
  if (leaves->empty()) {
    return Fail(kName,
                absl::InvalidArgumentError(
                    "no leaves: the games have no position past ply 10"),
                kExitInvalidInput);
  }

  const auto [truth, truth_seconds] = Score(**heuristic, *reference, *leaves);
  std::cout << absl::StrFormat(
      "%s: %d leaves; reference %d+%d plies at %.0f leaves/s (1 thread)\n",
      (*game)->Info().name, leaves->size(), reference->plies,
      reference->recaptures, leaves->size() / truth_seconds);
  std::cout << "| plies+recaptures | leaves/s | mean abs error (cp) | mean "
               "abs error of tanh(q/scale) | leaves off by > 150 cp |\n"
               "|---|---|---|---|---|\n";
  for (const Depths& d : depths) {
    const auto [scores, seconds] = Score(**heuristic, d, *leaves);
    double cp_error = 0;
    double tanh_error = 0;
    int far = 0;
    for (size_t i = 0; i < scores.size(); ++i) {
      const int error = std::abs(scores[i] - truth[i]);
      cp_error += error;
      tanh_error += std::abs(std::tanh(scores[i] / *scale) -
                             std::tanh(truth[i] / *scale));
      far += error > 150;
    }
    const double n = static_cast<double>(scores.size());
    std::cout << absl::StrFormat("| %d+%d | %.0f | %.1f | %.4f | %.1f %% |\n",
                                 d.plies, d.recaptures, n / seconds,
                                 cp_error / n, tanh_error / n, 100 * far / n);
  }
  return kExitOk;
}

}  // namespace volkhv::cli
