// `volkhv match`: plays players against each other (selfplay/match.h) and
// reports W/D/L, Elo with its 95 % interval, LOS and an optional SPRT.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/evaluator_setup.h"
#include "cli/game_setup.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/util/strings.h"
#include "engine/util/time.h"
#include "nn/bundled_net.h"
#include "nn/evaluator.h"
#include "nn/evaluator_factory.h"
#include "nn/torch_backend.h"
#include "proto/game_record.pb.h"
#include "selfplay/adjudication.h"
#include "selfplay/elo.h"
#include "selfplay/game_clock.h"
#include "selfplay/match.h"
#include "selfplay/match_records.h"
#include "selfplay/player_spec.h"

namespace volkhv::cli {
namespace {

constexpr char kCommand[] = "match";
constexpr char kSynopsis[] =
    "volkhv match --game G --player SPEC --player SPEC [--player SPEC ...]\n"
    "             [--games N | --pairs N] [--openings FILE | --random-plies "
    "K]"
    "\n"
    "             [--concurrency N] [--sprt elo0=0,elo1=5,alpha=0.05,"
    "beta=0.05]\n"
    "             [--pgn-out FILE [--resume]] [--seed S] [--max-plies N]\n"
    "             [--tc [MOVES/]SECONDS[+INC] [--timemargin MS]]\n"
    "             [--draw movenumber=N,movecount=M,score=S]\n"
    "             [--resign movecount=M,score=S[,twosided=true]]\n"
    "             [--tournament round-robin|gauntlet]";

// Set by the first SIGINT or SIGTERM: no new game starts, the tally so far
// is printed. The handler then restores the default, so a second signal
// ends the process at once.
std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void OnInterrupt(int signal) {
  g_interrupt.store(true);
  std::signal(signal, SIG_DFL);
}

std::vector<OptionSpec> MatchSpecs() {
  std::vector<OptionSpec> specs = GameOptionSpecs();
  const std::vector<OptionSpec> own = {
      {"player", "SPEC", "",
       "a player (give two, or more for a round robin or gauntlet); SPEC "
       "below"},
      {"games", "N", "100",
       "games per pairing of players (rounded up to pairs)"},
      {"pairs", "N", "", "game pairs per pairing (instead of --games)"},
      {"openings", "FILE", "",
       "start positions, one per line in the game's notation, cycled"},
      {"random-plies", "K", "6",
       "without --openings: each pair starts after K random plies"},
      {"concurrency", "N", "1", "games played at once (threads)"},
      {"sprt", "PARAMS", "",
       "elo0=E0,elo1=E1,alpha=A,beta=B[,model=normalized|logistic]: test "
       "the first player against the second and stop when decided"},
      {"trinomial", "", "",
       "Elo and SPRT from game counts instead of pentanomial pair counts"},
      {"pgn-out", "FILE", "", "write every game to FILE (PGN-style)"},
      {"resume", "", "",
       "continue the match whose games --pgn-out FILE holds: finished games "
       "count and are not played again"},
      {"tc", "CLOCK", "",
       "game clock of every player: MOVES/SECONDS+INC (40/60+0.6), "
       "SECONDS+INC (60+0.6) or SECONDS; a player that overruns it loses on "
       "time"},
      {"timemargin", "MS", "0",
       "milliseconds a move may overrun the clock without losing"},
      {"draw", "RULE", "",
       "movenumber=N,movecount=M,score=S: adjudicate a draw after move N "
       "when both players' last M evaluations lie within S centipawns"},
      {"resign", "RULE", "",
       "movecount=M,score=S[,twosided=true]: a player whose last M "
       "evaluations were S centipawns or more below zero loses"},
      {"tournament", "KIND", "round-robin",
       "with more than two players: round-robin (everyone against everyone) "
       "or gauntlet (the first player against each other one)"},
      {"records-out", "FILE", "",
       "write every game to FILE as protobuf game records (.vrec)"},
      {"records-targets", "KIND", "none",
       "what the records train: none, or played (each player's move is the "
       "policy target, its evaluation blends into the value target; for "
       "`volkhv train --records`)"},
      {"no-comments", "", "", "no {evaluation} comments in the game file"},
      {"seed", "S", "1", "seed of the openings and the players"},
      {"max-plies", "N", "500", "adjudicate a draw after N plies (0 = never)"},
      {"resign-score", "CP", "0",
       "adjudicate a win when the players' evaluations all give one side "
       "at least CP centipawns (0 = never) ..."},
      {"resign-evals", "M", "6", "... for M evaluations in a row"},
      {"event", "NAME", "volkhv match", "[Event] tag of the game file"},
      {"nn-threads", "N", "",
       "networks: CPU threads (an older name of --threads)"},
      {"quiet", "", "", "no progress line"},
      {"help", "", "", "print this help"},
  };
  specs.insert(specs.end(), own.begin(), own.end());
  // The evaluator options of every command, shared by the players' nets;
  // --net is the net of the mcts: and policy: players that name none.
  for (OptionSpec spec : EvaluatorOptionSpecs()) {
    if (spec.name == "net") {
      spec.help =
          "the net of mcts: and policy: players without net= (a file, auto: "
          "the game's bundled net, or random)";
    }
    specs.push_back(spec);
  }
  return specs;
}

// Takes every --player out of args (the parser keeps only the last value of
// an option); the rest goes to CommandLine::Parse.
absl::StatusOr<std::vector<std::string>> ExtractPlayers(
    std::vector<std::string>* args) {
  std::vector<std::string> players;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& arg = (*args)[i];
    if (arg == "--player") {
      if (i + 1 >= args->size()) {
        return absl::InvalidArgumentError(
            "option '--player' needs a value (SPEC)");
      }
      players.push_back((*args)[++i]);
    } else if (arg.rfind("--player=", 0) == 0) {
      players.push_back(arg.substr(9));
    } else {
      rest.push_back(arg);
    }
  }
  *args = std::move(rest);
  return players;
}

}  // namespace

int RunMatch(const std::vector<std::string>& raw_args) {
  const std::vector<OptionSpec> specs = MatchSpecs();
  std::vector<std::string> args = raw_args;
  absl::StatusOr<std::vector<std::string>> player_specs = ExtractPlayers(&args);
  if (!player_specs.ok()) {
    return Fail(kCommand, player_specs.status(), kExitUsage);
  }
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 0);
  if (!cl.ok()) {
    const int code = Fail(kCommand, cl.status(), kExitUsage);
    std::cerr << "usage: " << kSynopsis << "\n";
    return code;
  }
  if (cl->Flag("help")) {
    std::cout << "usage: " << kSynopsis << "\n"
              << OptionsHelp(specs) << "player SPEC:\n"
              << selfplay::PlayerSpecHelp();
    return kExitOk;
  }
  auto usage = [](const std::string& message) {
    return Fail(kCommand, absl::InvalidArgumentError(message), kExitUsage);
  };
  if (player_specs->size() < 2) {
    return usage("give at least two --player (see --help)");
  }

  selfplay::MatchOptions options;
  struct IntOption {
    const char* name;
    int min;
    int max;
    int* out;
  };
  int pairs = 0;
  int seed = 1;
  const IntOption ints[] = {
      {"games", 1, 1000000, &options.games},
      {"random-plies", 0, 1000, &options.random_plies},
      {"concurrency", 1, 1024, &options.concurrency},
      {"seed", 0, 1 << 30, &seed},
      {"max-plies", 0, 1000000, &options.adjudication.max_plies},
      {"resign-score", 0, 100000, &options.adjudication.resign_score},
      {"resign-evals", 1, 100000, &options.adjudication.resign_evals},
  };
  for (const IntOption& o : ints) {
    absl::StatusOr<int> value = cl->GetInt(o.name, o.min, o.max);
    if (!value.ok()) return Fail(kCommand, value.status(), kExitUsage);
    *o.out = *value;
  }
  if (cl->Given("pairs")) {
    if (cl->Given("games")) return usage("give --games or --pairs, not both");
    absl::StatusOr<int> value = cl->GetInt("pairs", 1, 500000);
    if (!value.ok()) return Fail(kCommand, value.status(), kExitUsage);
    pairs = *value;
    options.games = 2 * pairs;
  }
  options.seed = static_cast<uint64_t>(seed);
  options.pentanomial = !cl->Flag("trinomial");
  options.comments = !cl->Flag("no-comments");
  options.pgn_path = cl->Get("pgn-out");
  options.event = cl->Get("event");
  if (cl->Given("sprt")) {
    absl::StatusOr<selfplay::SprtParams> sprt =
        selfplay::ParseSprtParams(cl->Get("sprt"));
    if (!sprt.ok()) return Fail(kCommand, sprt.status(), kExitUsage);
    if (player_specs->size() != 2) {
      return usage("--sprt needs exactly two players");
    }
    options.sprt = *sprt;
  }
  if (cl->Given("openings") && cl->Given("random-plies")) {
    return usage("give --openings or --random-plies, not both");
  }
  if (cl->Given("tc")) {
    absl::StatusOr<selfplay::ClockSpec> clock =
        selfplay::ParseClockSpec(cl->Get("tc"));
    if (!clock.ok()) return Fail(kCommand, clock.status(), kExitUsage);
    options.clock = *clock;
  }
  {
    absl::StatusOr<int> margin = cl->GetInt("timemargin", 0, 1 << 30);
    if (!margin.ok()) return Fail(kCommand, margin.status(), kExitUsage);
    options.time_margin_ms = *margin;
  }
  if (cl->Given("draw")) {
    absl::StatusOr<selfplay::DrawRule> rule =
        selfplay::ParseDrawRule(cl->Get("draw"));
    if (!rule.ok()) return Fail(kCommand, rule.status(), kExitUsage);
    options.adjudication.draw = *rule;
  }
  if (cl->Given("resign")) {
    absl::StatusOr<selfplay::ResignRule> rule =
        selfplay::ParseResignRule(cl->Get("resign"));
    if (!rule.ok()) return Fail(kCommand, rule.status(), kExitUsage);
    options.adjudication.resign = *rule;
  }
  if (const std::string kind = cl->Get("tournament"); kind == "gauntlet") {
    options.tournament = selfplay::Tournament::kGauntlet;
  } else if (kind != "round-robin") {
    return usage(
        Cat("--tournament: '", kind, "' is not round-robin or gauntlet"));
  }
  options.resume = cl->Flag("resume");
  if (options.resume && options.pgn_path.empty()) {
    return usage("--resume needs --pgn-out FILE (the match's game file)");
  }
  options.interrupt = &g_interrupt;
  const absl::StatusOr<selfplay::MatchRecordTargets> targets =
      selfplay::ParseMatchRecordTargets(cl->Get("records-targets"));
  if (!targets.ok()) {
    return usage(Cat("--records-targets: ", targets.status().message()));
  }
  if (cl->Given("records-targets") && !cl->Given("records-out")) {
    return usage("--records-targets needs --records-out FILE");
  }

  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail(kCommand, game.status(), kExitUsage);
  // GameFromCommandLine has checked the options.
  if (const std::string given =
          GameOptionsText(*GameOptionsFromCommandLine(*cl));
      !given.empty()) {
    options.variant = given;
  }
  if (cl->Given("openings")) {
    absl::StatusOr<std::vector<std::string>> positions =
        selfplay::ReadOpeningsFile(**game, cl->Get("openings"));
    if (!positions.ok()) {
      return Fail(kCommand, positions.status(), kExitInvalidInput);
    }
    options.opening_positions = *std::move(positions);
  }

  absl::StatusOr<proto::EvaluatorConfig> evaluator_config =
      EvaluatorConfigFromCommandLine(*cl);
  if (!evaluator_config.ok()) {
    return Fail(kCommand, evaluator_config.status(), kExitUsage);
  }
  if (cl->Given("nn-threads")) {
    if (cl->Given("threads")) {
      return usage("give --threads or --nn-threads, not both");
    }
    absl::StatusOr<int> threads = cl->GetInt("nn-threads", 0, 1024);
    if (!threads.ok()) return Fail(kCommand, threads.status(), kExitUsage);
    evaluator_config->set_threads(*threads);
  }
  // Each net is loaded once (the backend behind a batching evaluator with an
  // NN cache), shared by every player naming it. A player without net= asks
  // for "auto": the match's --net.
  const nn::EvaluatorFactory nets =
      nn::CachingEvaluatorFactory(nn::MakeEvaluatorFactory(*evaluator_config));
  const std::string match_net = cl->Get("net");
  const nn::EvaluatorFactory evaluators =
      [&nets, &match_net](const std::string& net, const Game& game) {
        return nets(net == nn::kAutoNet ? match_net : net, game);
      };
  selfplay::PlayerContext context;
  context.match_clock = options.clock.has_value();
  context.uci.variant = options.variant;
  context.uci.margin_ms = options.time_margin_ms;
  context.uci.interrupt = &g_interrupt;
  std::vector<std::shared_ptr<selfplay::PlayerFactory>> players;
  for (const std::string& spec : *player_specs) {
    absl::StatusOr<std::shared_ptr<selfplay::PlayerFactory>> factory =
        selfplay::MakePlayerFactory(spec, **game, evaluators, context);
    if (!factory.ok()) {
      return Fail(kCommand, factory.status(), kExitInvalidInput);
    }
    players.push_back(*std::move(factory));
  }

  const bool tty = isatty(STDERR_FILENO) != 0;
  const bool quiet = cl->Flag("quiet");
  std::cout << "Match: " << (*game)->Info().name << ", " << players.size()
            << " players, " << ((options.games + 1) / 2 * 2)
            << " games per pairing, openings: "
            << (options.opening_positions.empty()
                    ? (options.random_plies > 0
                           ? Cat(options.random_plies, " random plies")
                           : std::string("the start position"))
                    : Cat(options.opening_positions.size(), " positions from ",
                          cl->Get("openings")))
            << ", concurrency " << options.concurrency << "\n";
  if (options.clock) {
    std::cout << "Clock: " << options.clock->Describe() << ", margin "
              << options.time_margin_ms << " ms\n";
  }
  for (size_t i = 0; i < players.size(); ++i) {
    std::cout << "  player " << i + 1 << ": " << players[i]->Name();
    if (players[i]->clock()) {
      std::cout << " (clock " << players[i]->clock()->Describe() << ")";
    }
    std::cout << "\n";
  }
  std::cout << std::flush;
  // On a terminal the line is redrawn after a game, at most once a second
  // (and after the last); else a line every 10 games and after the last.
  std::chrono::steady_clock::time_point last_shown{};
  const selfplay::MatchCallback progress =
      [&](const selfplay::MatchReport& report) {
        if (quiet) return;
        const size_t done = report.games.size();
        const bool last = static_cast<int>(done) == report.games_scheduled;
        const auto now = std::chrono::steady_clock::now();
        if (tty) {
          if (!last && now - last_shown < std::chrono::seconds(1)) return;
          last_shown = now;
          std::cerr << "\r" << report.ProgressLine() << "\033[K" << std::flush;
        } else if (done % 10 == 0 || last) {
          std::cerr << report.ProgressLine() << "\n";
        }
      };
  g_interrupt.store(false);
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  absl::StatusOr<selfplay::MatchReport> report =
      selfplay::RunMatch(**game, players, options, progress);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (!quiet && tty) std::cerr << "\n";
  if (!report.ok()) return Fail(kCommand, report.status(), kExitInvalidInput);
  std::cout << report->Summary();
  if (!options.pgn_path.empty()) {
    std::cout << "games written to " << options.pgn_path << "\n";
  }
  if (cl->Given("records-out")) {
    const std::string& path = cl->Get("records-out");
    if (absl::Status s = WriteGameRecords(
            path, selfplay::MatchRecords(*report, **game, options, *targets));
        !s.ok()) {
      return Fail(kCommand, s, kExitInvalidInput);
    }
    std::cout << "records written to " << path << "\n";
  }
  if (report->interrupted) {
    std::cout << std::flush;
    std::cerr << "volkhv match: interrupted"
              << (options.pgn_path.empty()
                      ? std::string("\n")
                      : Cat("; the games are in ", options.pgn_path,
                            ": run the same command with --resume to "
                            "continue\n"));
    return 130;
  }
  return kExitOk;
}

}  // namespace volkhv::cli
