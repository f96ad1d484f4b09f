// `volkhv bench search`: MCTS playouts per second (on --search-threads
// threads, 1 by default), the tree's bytes per node, and the
// share of wall time spent inside the evaluator, with the uniform evaluator
// (pure search overhead, --net random) or a network (--net auto or FILE).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/evaluator_setup.h"
#include "cli/game_setup.h"
#include "engine/games/games.h"
#include "engine/search/search.h"
#include "nn/evaluator.h"
#include "nn/evaluator_factory.h"

namespace volkhv::cli {
namespace {

// Runs `runs` fresh searches of `state` and prints one line per run plus
// the median (the evaluator is the only thing that differs between the
// uniform and the network figures).
void BenchWith(const GameState& state, nn::Evaluator* evaluator,
               const Prover* prover, const std::string& evaluator_name,
               const search::SearchParams& params,
               const search::SearchLimits& limits, int runs) {
  std::vector<double> rates;
  for (int run = 0; run < runs; ++run) {
    search::Search search(params, evaluator, prover, /*seed=*/run + 1);
    const absl::Status status = search.SetPosition(state);
    if (!status.ok()) return;
    const search::SearchResult r = search.Run(limits);
    rates.push_back(r.playouts_per_second);
    const auto release_start = std::chrono::steady_clock::now();
    search.ClearTree();
    const double release_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      release_start)
            .count();
    // With several search threads their evaluator time adds up (past 100%).
    const double eval_share =
        r.elapsed_seconds > 0 ? 100 * r.eval_seconds / r.elapsed_seconds : 0;
    std::cout << absl::StrFormat(
        "run %d: %d playouts in %.2f s = %.0f playouts/s; tree %d nodes, "
        "%.1f MiB (%.0f bytes/node); depth %.1f avg, %d max; %s evaluator "
        "%.1f%% of wall time (%d calls, %.1f positions each); stop: %s; "
        "freeing the tree took %.2f s (%.0f ns/node)\n",
        run + 1, r.playouts, r.elapsed_seconds, r.playouts_per_second,
        r.tree_nodes, r.tree_bytes / 1048576.0,
        r.tree_nodes > 0 ? double(r.tree_bytes) / r.tree_nodes : 0.0,
        r.average_depth, r.max_depth, evaluator_name, eval_share, r.batches,
        r.batches > 0 ? double(r.evaluations) / r.batches : 0.0,
        search::StopReasonName(r.stop_reason), release_seconds,
        r.tree_nodes > 0 ? 1e9 * release_seconds / r.tree_nodes : 0.0);
  }
  std::sort(rates.begin(), rates.end());
  std::cout << absl::StrFormat(
      "%s evaluator, minibatch %d, %d search thread%s: median %.0f "
      "playouts/s (min %.0f, max %.0f, %d runs)\n",
      evaluator_name, params.minibatch_size, params.search_threads,
      params.search_threads == 1 ? "" : "s", rates[rates.size() / 2],
      rates.front(), rates.back(), runs);
}

}  // namespace

int BenchSearch(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = GameOptionSpecs();
  specs.push_back({"position", "TEXT", "",
                   "position to search (default: the start position)"});
  specs.push_back({"visits", "N", "",
                   "stop each run at N root visits (instead of --seconds)"});
  specs.push_back({"seconds", "S", "10", "length of each run"});
  specs.push_back({"batch", "N", "",
                   "leaves per evaluator call "
                   "(default: the search default)"});
  specs.push_back({"runs", "N", "1", "runs; the median counts"});
  specs.push_back({"ram-mb", "MB", "", "tree memory cap in MiB"});
  specs.push_back(
      {"search-threads", "N", "", "threads growing the tree (default: 1)"});
  for (OptionSpec& spec : EvaluatorOptionSpecs()) specs.push_back(spec);
  specs.push_back({"help", "", "", "print this help"});
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 0);
  if (!cl.ok()) return Fail("bench search", cl.status(), kExitUsage);
  if (cl->Flag("help")) {
    std::cout << "usage: volkhv bench search [--game G] [--position P] "
                 "[--visits N | --seconds S] [--batch N] [--runs N] "
                 "[--net auto|FILE|random]\n"
              << OptionsHelp(specs);
    return kExitOk;
  }
  absl::StatusOr<proto::EvaluatorConfig> evaluator_config =
      EvaluatorConfigFromCommandLine(*cl);
  if (!evaluator_config.ok()) {
    return Fail("bench search", evaluator_config.status(), kExitUsage);
  }
  search::SearchParams params;
  search::SearchLimits limits;
  if (cl->Given("visits")) {
    absl::StatusOr<int> visits = cl->GetInt("visits", 1, 2000000000);
    if (!visits.ok()) return Fail("bench search", visits.status(), kExitUsage);
    limits.visits = *visits;
  } else {
    absl::StatusOr<int> seconds = cl->GetInt("seconds", 1, 3600);
    if (!seconds.ok()) {
      return Fail("bench search", seconds.status(), kExitUsage);
    }
    limits.time_ms = int64_t{*seconds} * 1000;
  }
  for (const auto& [option, param] :
       {std::pair<std::string, std::string>{"batch", "minibatch_size"},
        {"ram-mb", "ram_limit_mb"},
        {"search-threads", "search_threads"}}) {
    if (!cl->Given(option)) continue;
    const absl::Status status =
        search::SetSearchParam(&params, param, cl->Get(option));
    if (!status.ok()) {
      return Fail("bench search",
                  absl::InvalidArgumentError("--" + option + ": " +
                                             std::string(status.message())),
                  kExitUsage);
    }
  }
  absl::StatusOr<int> runs = cl->GetInt("runs", 1, 1000);
  if (!runs.ok()) return Fail("bench search", runs.status(), kExitUsage);
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("bench search", game.status(), kExitUsage);
  absl::StatusOr<std::unique_ptr<GameState>> state =
      cl->Get("position").empty()
          ? (*game)->NewInitialState()
          : (*game)->NewStateFromText(cl->Get("position"));
  if (!state.ok()) {
    return Fail("bench search", state.status(), kExitInvalidInput);
  }
  if ((*state)->Result().IsOver()) {
    return Fail("bench search",
                absl::InvalidArgumentError("the position is already decided"),
                kExitInvalidInput);
  }
  std::cout << (*game)->Info().name << " "
            << (cl->Get("position").empty() ? std::string("start position")
                                            : cl->Get("position"))
            << "\n";
  absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
      nn::MakeEvaluator(*evaluator_config, cl->Get("net"), **game);
  if (!evaluator.ok()) {
    return Fail("bench search", evaluator.status(), kExitInvalidInput);
  }
  BenchWith(**state, evaluator->get(), GameProver(**game),
            cl->Get("net") == "random" ? "uniform" : "network", params, limits,
            *runs);
  return kExitOk;
}

}  // namespace volkhv::cli
