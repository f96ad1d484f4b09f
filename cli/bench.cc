// `volkhv bench movegen`: perft speed, single thread, median of several runs.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/game_setup.h"
#include "engine/games/games.h"

namespace volkhv::cli {
namespace {

int BenchMovegen(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = GameOptionSpecs();
  specs.push_back({"position", "TEXT", "",
                   "position to time (default: the game's bench positions)"});
  specs.push_back({"depth", "N", "", "perft depth (default: per position)"});
  specs.push_back({"runs", "N", "5", "runs per position; the median counts"});
  specs.push_back({"help", "", "", "print this help"});
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 0);
  if (!cl.ok()) return Fail("bench movegen", cl.status(), kExitUsage);
  if (cl->Flag("help")) {
    std::cout << "usage: volkhv bench movegen [--game G] [--position P] "
                 "[--depth N] [--runs N]\n"
              << OptionsHelp(specs);
    return kExitOk;
  }
  absl::StatusOr<int> runs = cl->GetInt("runs", 1, 1000);
  if (!runs.ok()) return Fail("bench movegen", runs.status(), kExitUsage);
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("bench movegen", game.status(), kExitUsage);
  std::vector<BenchPosition> positions = GameBenchPositions(cl->Get("game"));
  if (cl->Given("position")) positions = {{"given", cl->Get("position"), 4}};
  if (cl->Given("depth")) {
    absl::StatusOr<int> depth = cl->GetInt("depth", 1, 12);
    if (!depth.ok()) return Fail("bench movegen", depth.status(), kExitUsage);
    for (BenchPosition& p : positions) p.depth = *depth;
  }
  for (const BenchPosition& p : positions) {
    absl::StatusOr<std::unique_ptr<GameState>> state =
        p.text.empty() ? (*game)->NewInitialState()
                       : (*game)->NewStateFromText(p.text);
    if (!state.ok()) {
      return Fail("bench movegen", state.status(), kExitInvalidInput);
    }
    std::vector<double> rates;
    uint64_t nodes = 0;
    for (int r = 0; r < *runs; ++r) {
      const auto start = std::chrono::steady_clock::now();
      nodes = (*state)->Perft(p.depth);
      const double s = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      rates.push_back(nodes / s);
    }
    std::sort(rates.begin(), rates.end());
    std::cout << absl::StrFormat(
        "%s %s perft(%d) = %d nodes: median %.2f Mnodes/s (min %.2f, max "
        "%.2f, %d runs, 1 thread)\n",
        (*game)->Info().name, p.name, p.depth, nodes,
        rates[rates.size() / 2] / 1e6, rates.front() / 1e6, rates.back() / 1e6,
        *runs);
  }
  return kExitOk;
}

}  // namespace

int RunBench(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help") {
    std::cout << "usage: volkhv bench movegen|search|nn|quiescence [options]\n";
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "movegen") {
    return BenchMovegen({args.begin() + 1, args.end()});
  }
  if (args[0] == "search") return BenchSearch({args.begin() + 1, args.end()});
  if (args[0] == "nn") return BenchNn({args.begin() + 1, args.end()});
  if (args[0] == "quiescence") {
    return BenchQuiescence({args.begin() + 1, args.end()});
  }
  return Fail(
      "bench",
      absl::InvalidArgumentError("unknown benchmark '" + args[0] +
                                 "' (known: movegen, search, nn, quiescence)"),
      kExitUsage);
}

}  // namespace volkhv::cli
