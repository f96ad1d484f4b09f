// `volkhv selfplay`: plays self-play games (selfplay/selfplay.h) with a
// network or the uniform `random` evaluator and writes game record files.
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/evaluator_setup.h"
#include "cli/game_setup.h"
#include "cli/selfplay_follow.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/util/strings.h"
#include "nn/evaluator_factory.h"
#include "nn/weights_file.h"
#include "selfplay/selfplay.h"
#include "selfplay/selfplay_config.h"

namespace volkhv::cli {
namespace {

constexpr char kUsage[] =
    "usage: volkhv selfplay --game G --out DIR [--config FILE] "
    "[--set 'FIELD: VALUE ...'] [--net FILE|random] [--games N] "
    "[--parallel N] [--visits N] [--seed N] [--generation N] "
    "[evaluator options]\n"
    "       volkhv selfplay --follow RUN [--games N] [--parallel N] "
    "[--seed N] [evaluator options]\n"
    "Plays self-play games and writes them as game record files into DIR\n"
    "(several worker processes may share one DIR). Settings: the defaults of\n"
    "proto/selfplay_config.proto, then --config, then --set, then the\n"
    "options below. Ctrl-C (SIGINT) or SIGTERM stops after writing the\n"
    "finished games (a second one, 2 s later or more, ends at once).\n"
    "With --follow, a worker of `volkhv loop` run with external_selfplay:\n"
    "the game and settings come from RUN/config.textproto, the net from\n"
    "RUN/nets/latest.textproto (a new one is picked up between rounds of\n"
    "games), the games go to RUN/incoming/; --games limits this worker's\n"
    "games; it ends when the run has finished.\n";

// Inference threads for self-play. Measured on the shared 2-core machine
// with self-play's own threads running (default CPU net, alternating 20 s
// runs): under load from other processes 1 thread averaged more evals/s
// than one per core (LibTorch, 16 games at once: 2680 vs 2150; with a busy
// loop beside it, auto backend: 4000 vs 3150), on an otherwise quiet machine
// one per core was about 7 % faster (auto backend: 5480 vs 5120). One
// thread never showed the slowdowns several threads can suffer when other
// busy threads share the cores, and leaves a core to everything else.
constexpr char kSelfplayInferenceThreads[] = "1";

std::atomic<bool> g_stop{false};
// CLOCK_MONOTONIC seconds of the first stop signal.
std::atomic<int64_t> g_first_signal_s{0};

int64_t MonotonicSeconds() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return now.tv_sec;
}

// The first SIGINT/SIGTERM stops self-play gracefully (the finished games
// are written). One arriving at least 2 s later ends the process the
// default way; sooner it is taken as the same request delivered twice
// (`timeout` signals both the process and its process group).
extern "C" void OnStopSignal(int sig) {
  if (!g_stop.exchange(true)) {
    g_first_signal_s.store(MonotonicSeconds());
    return;
  }
  if (MonotonicSeconds() - g_first_signal_s.load() >= 2) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

std::string Duration(double seconds) {
  if (seconds < 0) return "?";
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return absl::StrFormat("%ldh%02ldm", s / 3600, s % 3600 / 60);
  if (s >= 60) return absl::StrFormat("%ldm%02lds", s / 60, s % 60);
  return absl::StrFormat("%lds", s);
}

std::string ProgressLine(const selfplay::SelfplayStats& s) {
  std::string line = absl::StrFormat(
      "selfplay: %d/%d games, %.0f games/h, %.1f plies/game, "
      "first %d second %d draw %d, %.0f evals/s",
      s.games_finished, s.games_total, s.GamesPerHour(), s.AveragePlies(),
      s.first_wins, s.second_wins, s.draws, s.EvaluationsPerSecond());
  if (s.has_network_stats) {
    Append(&line, absl::StrFormat(", batch %.1f, net %.0f%%", s.AverageBatch(),
                                  100 * s.NetworkShare()));
  }
  Append(&line, ", ETA ", Duration(s.EtaSeconds()));
  return line;
}

void PrintSummary(const selfplay::SelfplayStats& s, std::string_view game,
                  const std::string& out) {
  std::cout << absl::StrFormat(
      "selfplay: %d games in %.1f s (%.1f games/h)%s; %d file%s in %s\n",
      s.games_finished, s.wall_seconds, s.GamesPerHour(),
      s.stopped ? ", stopped early" : "", static_cast<int>(s.files.size()),
      s.files.size() == 1 ? "" : "s", out);
  std::cout << absl::StrFormat(
      "  plies: %d (%.1f per game); full searches (training positions): "
      "%d (%.1f%%)\n",
      s.plies, s.AveragePlies(), s.full_search_plies,
      s.plies > 0 ? 100.0 * s.full_search_plies / s.plies : 0.0);
  const int n = std::max(s.games_finished, 1);
  std::cout << absl::StrFormat(
      "  results: first player %d (%.1f%%), second player %d (%.1f%%), "
      "draw %d (%.1f%%)\n  endings:",
      s.first_wins, 100.0 * s.first_wins / n, s.second_wins,
      100.0 * s.second_wins / n, s.draws, 100.0 * s.draws / n);
  for (const auto& [termination, count] : s.terminations) {
    std::cout << " " << RecordTerminationName(game, termination) << " " << count
              << ";";
  }
  std::cout << "\n";
  if (s.playthrough_games > 0) {
    std::cout << absl::StrFormat(
        "  resignation: %d games played out, %d reached the resignation "
        "condition, %d of those not lost by the resigning side (false "
        "resignations)\n",
        s.playthrough_games, s.would_resign_games, s.false_resigns);
  }
  std::cout << absl::StrFormat(
      "  search: %d searches, %d playouts, %d evaluations (%.0f evals/s)\n",
      s.searches, s.playouts, s.evaluations, s.EvaluationsPerSecond());
  if (s.has_network_stats) {
    const int64_t asked = s.network_positions + s.cache_hits;
    std::cout << absl::StrFormat(
        "  network: %d batches, %.1f positions each, %d positions "
        "(%.0f/s), cache hits %.1f%%; time in the network %.1f s = %.1f%% "
        "of wall time\n",
        s.batches, s.AverageBatch(), s.network_positions,
        s.wall_seconds > 0 ? s.network_positions / s.wall_seconds : 0.0,
        asked > 0 ? 100.0 * s.cache_hits / asked : 0.0, s.network_seconds,
        100 * s.NetworkShare());
  } else {
    std::cout << "  network: n/a (random evaluator: uniform priors, no "
                 "network)\n";
  }
}

// `--follow RUN`: the settings come from the run, not the command line.
int RunFollow(const CommandLine& cl) {
  for (const char* option : {"out", "config", "set", "net", "generation",
                             "prefix", "game", "prince-max-steps", "visits"}) {
    if (cl.Given(option)) {
      return Fail("selfplay",
                  absl::InvalidArgumentError(
                      Cat("--", option,
                          " cannot be given with --follow (the run's "
                          "config.textproto and nets/latest.textproto say "
                          "it)")),
                  kExitUsage);
    }
  }
  absl::StatusOr<proto::EvaluatorConfig> evaluator_config =
      EvaluatorConfigFromCommandLine(cl);
  if (!evaluator_config.ok()) {
    return Fail("selfplay", evaluator_config.status(), kExitUsage);
  }
  FollowOptions options;
  options.run_dir = cl.Get("follow");
  options.evaluator = *evaluator_config;
  if (cl.Given("games")) {
    absl::StatusOr<int> games = cl.GetInt("games", 0, 1'000'000'000);
    if (!games.ok()) return Fail("selfplay", games.status(), kExitUsage);
    options.max_games = *games;
  }
  if (cl.Given("parallel")) {
    absl::StatusOr<int> parallel = cl.GetInt("parallel", 1, 4096);
    if (!parallel.ok()) return Fail("selfplay", parallel.status(), kExitUsage);
    options.parallel = *parallel;
  }
  if (cl.Given("seed")) {
    absl::StatusOr<uint64_t> seed = cl.GetUint64("seed");
    if (!seed.ok()) return Fail("selfplay", seed.status(), kExitUsage);
    options.seed = *seed;
  }
  g_stop.store(false);
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  const int code = FollowRun(options, &g_stop);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return code;
}

}  // namespace

int RunSelfplay(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = GameOptionSpecs();
  specs.push_back({"out", "DIR", "", "directory for the game record files"});
  specs.push_back({"follow", "RUN", "",
                   "work for the loop of run directory RUN (see above)"});
  specs.push_back({"config", "FILE", "",
                   "self-play config, text format "
                   "(proto/selfplay_config.proto; e.g. "
                   "configs/selfplay-cpu.textproto)"});
  specs.push_back({"set", "TEXT", "",
                   "config fields in text format over the config file, "
                   "e.g. 'cheap_visits: 20 max_plies: 300'"});
  specs.push_back({"games", "N", "", "games to play (config: games)"});
  specs.push_back(
      {"parallel", "N", "", "games played at once (config: parallel_games)"});
  specs.push_back(
      {"visits", "N", "", "root visits of a full search (config: visits)"});
  specs.push_back(
      {"seed", "N", "", "random seed, 0 = fresh every run (config: seed)"});
  specs.push_back({"prefix", "NAME", "selfplay", "record file name prefix"});
  specs.push_back({"generation", "N", "",
                   "net generation recorded in the games (default: the net "
                   "file's, -1 for random)"});
  for (OptionSpec spec : EvaluatorOptionSpecs()) {
    if (spec.name == "threads") {
      spec = OptionSpec{
          spec.name, spec.value_name, kSelfplayInferenceThreads,
          Cat(spec.help, "; self-play default: ", kSelfplayInferenceThreads)};
    }
    specs.push_back(spec);
  }
  specs.push_back({"help", "", "", "print this help"});
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 0);
  if (!cl.ok()) return Fail("selfplay", cl.status(), kExitUsage);
  if (cl->Flag("help")) {
    std::cout << kUsage << OptionsHelp(specs);
    return kExitOk;
  }
  if (cl->Given("follow")) return RunFollow(*cl);
  if (cl->Get("out").empty()) {
    return Fail("selfplay",
                absl::InvalidArgumentError("option '--out' is required"),
                kExitUsage);
  }
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("selfplay", game.status(), kExitUsage);

  proto::SelfplayConfig config;
  if (!cl->Get("config").empty()) {
    absl::StatusOr<proto::SelfplayConfig> read =
        selfplay::ReadSelfplayConfig(cl->Get("config"));
    if (!read.ok()) return Fail("selfplay", read.status(), kExitInvalidInput);
    config = *std::move(read);
  }
  if (cl->Given("set")) {
    if (absl::Status s =
            selfplay::MergeSelfplayConfigText(cl->Get("set"), "--set", &config);
        !s.ok()) {
      return Fail("selfplay", s, kExitUsage);
    }
  }
  struct IntOverride {
    const char* option;
    int min;
    int max;
    void (proto::SelfplayConfig::*set)(int32_t);
  };
  for (const IntOverride& o :
       {IntOverride{"games", 0, 1'000'000'000,
                    &proto::SelfplayConfig::set_games},
        IntOverride{"parallel", 1, 4096,
                    &proto::SelfplayConfig::set_parallel_games},
        IntOverride{"visits", 1, 10'000'000,
                    &proto::SelfplayConfig::set_visits}}) {
    if (!cl->Given(o.option)) continue;
    absl::StatusOr<int> value = cl->GetInt(o.option, o.min, o.max);
    if (!value.ok()) return Fail("selfplay", value.status(), kExitUsage);
    (config.*o.set)(*value);
  }
  if (cl->Given("visits") && config.cheap_visits() > config.visits()) {
    config.set_cheap_visits(config.visits());
  }
  if (cl->Given("seed")) {
    absl::StatusOr<uint64_t> seed = cl->GetUint64("seed");
    if (!seed.ok()) return Fail("selfplay", seed.status(), kExitUsage);
    config.set_seed(*seed);
  }
  if (absl::Status s = selfplay::ValidateSelfplayConfig(config); !s.ok()) {
    return Fail("selfplay", s, kExitUsage);
  }

  absl::StatusOr<proto::EvaluatorConfig> evaluator_config =
      EvaluatorConfigFromCommandLine(*cl);
  if (!evaluator_config.ok()) {
    return Fail("selfplay", evaluator_config.status(), kExitUsage);
  }
  const std::string net = cl->Get("net");
  selfplay::SelfplayOutput output;
  output.directory = cl->Get("out");
  output.file_prefix = cl->Get("prefix");
  absl::StatusOr<GameOptions> game_options = GameOptionsFromCommandLine(*cl);
  if (!game_options.ok()) {
    return Fail("selfplay", game_options.status(), kExitUsage);
  }
  output.game_options = GameOptionsText(*game_options);
  if (cl->Given("generation")) {
    absl::StatusOr<int> generation =
        cl->GetInt("generation", -1, 1'000'000'000);
    if (!generation.ok()) {
      return Fail("selfplay", generation.status(), kExitUsage);
    }
    output.net_generation = *generation;
  } else if (net != "random") {
    absl::StatusOr<std::string> path = nn::ResolveNet(net, **game);
    if (!path.ok()) return Fail("selfplay", path.status(), kExitInvalidInput);
    absl::StatusOr<nn::NetworkWeights> weights = nn::ReadNetworkWeights(*path);
    if (!weights.ok()) {
      return Fail("selfplay", weights.status(), kExitInvalidInput);
    }
    output.net_generation = weights->header.provenance().generation();
  }
  absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
      nn::MakeEvaluator(*evaluator_config, net, **game);
  if (!evaluator.ok()) {
    return Fail("selfplay", evaluator.status(), kExitInvalidInput);
  }

  std::cerr << absl::StrFormat(
      "selfplay: %s, %d games, %d at once, visits %d full / %d cheap "
      "(full %.0f%%), net %s (generation %d) -> %s\n",
      (*game)->Info().name, config.games(), config.parallel_games(),
      config.visits(), config.cheap_visits(), 100 * config.full_search_prob(),
      net, output.net_generation, output.directory);
  const bool tty = isatty(STDERR_FILENO) != 0;
  // On a terminal the line is rewritten every second; otherwise one line
  // every 10 seconds (logs).
  double last_line = -1e9;
  size_t last_width = 0;
  auto progress = [&](const selfplay::SelfplayStats& s) {
    if (tty) {
      std::string line = ProgressLine(s);
      const size_t width = line.size();
      if (width < last_width) line.append(last_width - width, ' ');
      last_width = width;
      std::cerr << "\r" << line << std::flush;
    } else if (s.wall_seconds - last_line >= 10) {
      last_line = s.wall_seconds;
      std::cerr << ProgressLine(s) << "\n";
    }
  };

  g_stop.store(false);
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  absl::StatusOr<selfplay::SelfplayStats> stats = selfplay::RunSelfplay(
      config, **game, evaluator->get(), output, progress, &g_stop);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (tty) std::cerr << "\n";
  if (!stats.ok()) return Fail("selfplay", stats.status(), kExitInvalidInput);
  PrintSummary(*stats, (*game)->Info().name, output.directory);
  std::cout << std::flush;
  return kExitOk;
}

}  // namespace volkhv::cli
