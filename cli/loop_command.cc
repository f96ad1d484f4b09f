// `volkhv loop --config FILE --dir RUN`: the generation loop.
#include <atomic>
#include <csignal>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/game_setup.h"
#include "engine/util/strings.h"
#include "engine/util/time.h"
#include "nn/bundled_net.h"
#include "training/loop.h"
#include "training/loop_report.h"

namespace volkhv::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void OnSignal(int) { g_stop = true; }

}  // namespace

int RunLoop(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {
      {"config", "FILE", "",
       "loop config (configs/*.textproto); not needed to continue a run"},
      {"dir", "RUN", "", "run directory (created; continued when it exists)"},
      {"net-in", "FILE", "",
       "start a new run from this net (auto: the game's bundled net) "
       "instead of a random one"},
      {"games-from", "DIR", "",
       "with --net-in: start the replay window with the game records in "
       "DIR (the games/ of the run the net came from)"},
      {"cpu-hours", "H", "0",
       "stop before a generation the run's CPU time (all sessions, all "
       "threads) cannot pay for (0 = no limit)"},
      {"wall-hours", "H", "0", "the same for elapsed time (0 = no limit)"},
      {"help", "", "", "print this help"},
  };
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "loop",
      "volkhv loop --config FILE --dir RUN [--net-in FILE [--games-from DIR]] "
      "[--cpu-hours H] [--wall-hours H]",
      args, specs, 0, &code);
  if (!cl) return code;
  if (cl->Get("dir").empty()) {
    return Fail("loop", absl::InvalidArgumentError("--dir is required"),
                kExitUsage);
  }
  training::LoopOptions options;
  options.run_dir = cl->Get("dir");
  options.start_net = cl->Get("net-in");
  options.start_games = cl->Get("games-from");
  if (!options.start_games.empty() && options.start_net.empty()) {
    return Fail("loop",
                absl::InvalidArgumentError(
                    "--games-from needs --net-in (the net those games "
                    "trained)"),
                kExitUsage);
  }
  for (const auto& [flag, hours] :
       {std::pair{"cpu-hours", &options.budget.cpu_hours},
        std::pair{"wall-hours", &options.budget.wall_hours}}) {
    absl::StatusOr<double> value = cl->GetDouble(flag, 0, 1e6);
    if (!value.ok()) return Fail("loop", value.status(), kExitUsage);
    *hours = *value;
  }
  if (!cl->Get("config").empty()) {
    absl::StatusOr<proto::LoopConfig> config =
        training::ReadLoopConfig(cl->Get("config"));
    if (!config.ok()) return Fail("loop", config.status(), kExitInvalidInput);
    options.config = *std::move(config);
  }
  // Without --config the run directory's config is the one in effect
  // (RunLoop reads it); without a readable one that is a usage error.
  std::string game = options.config.has_value() ? options.config->game() : "";
  if (!options.config.has_value()) {
    absl::StatusOr<proto::LoopConfig> stored =
        training::ReadLoopConfig(options.run_dir + "/config.textproto");
    if (!stored.ok()) {
      return Fail("loop",
                  absl::InvalidArgumentError(
                      Cat(options.run_dir,
                          " has no readable config.textproto: give --config (",
                          stored.status().message(), ")")),
                  kExitUsage);
    }
    game = stored->game();
  }
  if (options.start_net == nn::kAutoNet) {
    absl::StatusOr<std::string> bundled = nn::FindBundledNet(game);
    if (!bundled.ok()) {
      return Fail(
          "loop",
          absl::Status(bundled.status().code(),
                       Cat("--net-in auto: ", bundled.status().message())),
          kExitInvalidInput);
    }
    options.start_net = *bundled;
  }
  // options.evaluators stays empty: the loop makes its evaluators from the
  // config's evaluator section (nn::MakeEvaluator).
  options.log = [](const std::string& line) {
    std::cerr << "[" << UtcTimestamp() << "] " << line << std::endl;
  };
  options.stop = &g_stop;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  const absl::Status status = training::RunLoop(options);
  if (!status.ok()) return Fail("loop", status, kExitInvalidInput);
  if (g_stop) {
    std::cerr << "volkhv loop: stopped; run the same command to continue\n";
    return 130;
  }
  absl::StatusOr<std::optional<proto::FinalEvaluation>> final =
      training::ReadFinalEvaluation(options.run_dir);
  if (!final.ok()) return Fail("loop", final.status(), kExitInvalidInput);
  if (final->has_value()) {
    std::cerr << "volkhv loop: " << training::FinalSummary(**final)
              << "; report: " << options.run_dir << "/report.html\n";
  } else {
    std::cerr << "volkhv loop: done; see " << options.run_dir
              << "/metrics.csv and " << options.run_dir << "/report.html\n";
  }
  return kExitOk;
}

}  // namespace volkhv::cli
