// The search's front ends on the command line: `volkhv engine` (UCI-style
// text protocol), `volkhv analysis` (JSON analysis engine), `volkhv play`
// (a game in the terminal) and `volkhv analyze` (top candidates of a
// position or of every position of a recorded game).
#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/evaluator_setup.h"
#include "cli/game_setup.h"
#include "cli/version.h"
#include "engine/games/games.h"
#include "engine/protocol/analysis_engine.h"
#include "engine/protocol/line_reader.h"
#include "engine/protocol/score.h"
#include "engine/protocol/uci_engine.h"
#include "engine/records/game_file_reader.h"
#include "engine/search/centipawns.h"
#include "engine/search/search.h"
#include "engine/util/strings.h"
#include "nn/bundled_net.h"
#include "nn/evaluator_factory.h"
#include "selfplay/player_spec.h"

namespace volkhv::cli {
namespace {

constexpr int kMaxVisits = 100000000;

void Add(std::vector<OptionSpec>* specs, std::vector<OptionSpec> more) {
  for (OptionSpec& spec : more) specs->push_back(std::move(spec));
}

absl::StatusOr<uint64_t> Seed(const CommandLine& cl) {
  absl::StatusOr<int> seed = cl.GetInt("seed", 0, 2147483647);
  if (!seed.ok()) return seed.status();
  return static_cast<uint64_t>(*seed);
}

std::string SideName(const GameInfo& info, int side) {
  return side == 0 ? info.first_player_name : info.second_player_name;
}

// "W/D/L 41.2/30.0/28.8 %, score cp 35" or "... , mate in 2".
std::string Evaluation(const search::MoveInfo& m) {
  const std::array<int, 3> wdl = protocol::WdlPerMille(m.wdl);
  std::string text = absl::StrFormat("W/D/L %.1f/%.1f/%.1f %%", wdl[0] / 10.0,
                                     wdl[1] / 10.0, wdl[2] / 10.0);
  const std::optional<int> mate =
      protocol::MateInMoves(m.proven, m.proven_plies);
  if (mate.has_value()) {
    Append(&text, *mate > 0 ? ", mate in " : ", mated in ", std::abs(*mate));
  } else if (m.proven == search::Proven::kDraw) {
    Append(&text, ", proven draw");
  } else {
    Append(&text, ", score cp ", search::CentipawnsFromQ(m.q));
  }
  return text;
}

std::string JoinTexts(const std::vector<std::string>& texts, size_t limit) {
  std::string out;
  for (size_t i = 0; i < texts.size() && i < limit; ++i) {
    if (i > 0) out += ' ';
    out += texts[i];
  }
  if (texts.size() > limit) out += " ...";
  return out;
}

// "Result: white wins (checkmate)".
std::string ResultLine(const GameState& state) {
  const GameResult result = state.Result();
  const GameInfo& info = state.Info();
  const std::string reason = TerminationName(info.name, result.termination);
  switch (result.outcome) {
    case Outcome::kDraw:
      return Cat("Result: draw (", reason, ")");
    case Outcome::kWin:
      return Cat("Result: ", SideName(info, state.SideToMove()), " wins (",
                 reason, ")");
    case Outcome::kLoss:
      return Cat("Result: ", SideName(info, 1 - state.SideToMove()), " wins (",
                 reason, ")");
    case Outcome::kOngoing:
      break;
  }
  return "Result: the game goes on";
}

// The candidates table of `analyze`.
void PrintCandidates(const GameState& root, const search::SearchResult& r,
                     int top) {
  std::cout << absl::StrFormat("  %3s  %-10s %8s %6s %6s %6s %7s %7s  %s\n",
                               "#", "move", "visits", "win%", "draw%", "loss%",
                               "q", "prior", "pv");
  int shown = 0;
  for (const search::MoveInfo& m : r.moves) {
    if (shown >= top) break;
    if (shown > 0 && m.visits == 0 && m.proven == search::Proven::kNone) {
      continue;
    }
    ++shown;
    std::string q = absl::StrFormat("%+.3f", m.q);
    const std::optional<int> mate =
        protocol::MateInMoves(m.proven, m.proven_plies);
    if (mate.has_value()) q = absl::StrFormat("M%+d", *mate);
    std::cout << absl::StrFormat(
        "  %3d  %-10s %8d %6.1f %6.1f %6.1f %7s %7.4f  %s\n", shown,
        root.MoveText(m.move), m.visits, 100 * m.wdl[0], 100 * m.wdl[1],
        100 * m.wdl[2], q, m.prior,
        JoinTexts(protocol::MoveTexts(root, m.pv), 10));
  }
}

}  // namespace

int RunEngine(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = GameOptionSpecs();
  Add(&specs, EvaluatorOptionSpecs());
  Add(&specs,
      {{"seed", "N", "1", "seed of the search (root noise, sampling)"},
       {"ram-mb", "MB", "2048",
        "cap on the search tree's memory (the ram_limit_mb option; 0 = none): "
        "an infinite search stops growing the tree there"},
       {"max-line-bytes", "N", "1048576",
        "longer command lines are answered with an error and skipped"},
       {"player", "SPEC", "",
        "play alphabeta:depth=D (or movetime=MS, nodes=N; hash=MB, qdepth=N, "
        "as `match --player`) instead of MCTS with a net"},
       {"help", "", "", "print this help"}});
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "engine",
      "volkhv engine [--game G] [--net X | --player alphabeta:depth=D] "
      "[evaluator options]\n"
      "  UCI-style protocol on stdin/stdout: uci, isready, ucinewgame,\n"
      "  setoption name X value Y, position startpos|tfen T [moves ...],\n"
      "  go nodes N|visits N|movetime MS|depth N|mate N|searchmoves ...|"
      "ponder|infinite,\n"
      "  ponderhit, stop, quit",
      args, specs, 0, &code);
  if (!cl) return code;
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("engine", game.status(), kExitUsage);
  absl::StatusOr<proto::EvaluatorConfig> evaluator_config =
      EvaluatorConfigFromCommandLine(*cl);
  if (!evaluator_config.ok())
    return Fail("engine", evaluator_config.status(), kExitUsage);
  absl::StatusOr<uint64_t> seed = Seed(*cl);
  if (!seed.ok()) return Fail("engine", seed.status(), kExitUsage);

  protocol::UciEngineOptions options;
  options.game = cl->Get("game");
  // GameFromCommandLine has checked the options.
  options.game_options = *GameOptionsFromCommandLine(*cl);
  options.net = cl->Get("net");
  // UCI's Backend and NNCacheSize: the command line's evaluator settings
  // with those two changed.
  options.backend = evaluator_config->backend();
  options.nn_cache_entries = evaluator_config->cache_entries();
  options.factory_for = [config = *evaluator_config](const std::string& backend,
                                                     int cache_entries) {
    proto::EvaluatorConfig changed = config;
    changed.set_backend(backend);
    changed.set_cache_entries(cache_entries);
    return nn::MakeEvaluatorFactory(changed);
  };
  options.seed = *seed;
  if (cl->Given("player")) {
    absl::StatusOr<selfplay::AlphaBetaSpec> spec =
        selfplay::ParseAlphaBetaSpec(cl->Get("player"));
    if (!spec.ok()) {
      return Fail("engine",
                  absl::InvalidArgumentError(Cat(
                      "--player: ", spec.status().message(),
                      " (the engine plays MCTS with --net, or alphabeta:...)")),
                  kExitUsage);
    }
    options.alphabeta = protocol::AlphaBetaEngineOptions{
        .name = spec->name, .limits = spec->limits, .options = spec->options};
  }
  if (absl::Status s = search::SetSearchParam(&options.params, "ram_limit_mb",
                                              cl->Get("ram-mb"));
      !s.ok()) {
    return Fail("engine",
                absl::InvalidArgumentError(Cat("--ram-mb: ", s.message())),
                kExitUsage);
  }
  absl::StatusOr<int> max_line = cl->GetInt("max-line-bytes", 64, 1 << 30);
  if (!max_line.ok()) return Fail("engine", max_line.status(), kExitUsage);
  options.max_line_bytes = static_cast<size_t>(*max_line);
  // Replies come from the search thread too: reading stdin must not flush
  // stdout behind the engine's back.
  std::cin.tie(nullptr);
  protocol::UciEngine engine(
      options, nn::MakeEvaluatorFactory(*evaluator_config), &std::cout);
  // The net is loaded now: one that is missing or for another game is an
  // error before `uciok`, not at the first isready.
  if (absl::Status status = engine.Load(); !status.ok()) {
    return Fail("engine", status, kExitInvalidInput);
  }
  return engine.Run(std::cin);
}

int RunAnalysis(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = EvaluatorOptionSpecs();
  Add(&specs, {{"analysis-threads", "N", "2",
                "queries searched at once (each by its own search thread)"},
               {"visits", "N", "500", "maxVisits of queries that give none"},
               {"seed", "N", "1", "seed of every search"},
               {"ram-mb", "MB", "2048",
                "cap on each search tree's memory (the ram_limit_mb option; "
                "0 = none): a search stops there and answers"},
               {"max-line-bytes", "N", "1048576",
                "longer query lines are answered with an error and skipped"},
               {"max-json-depth", "N", "64",
                "queries nesting arrays/objects deeper are answered with an "
                "error"},
               {"help", "", "", "print this help"}});
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "analysis",
      "volkhv analysis [--net X] [--analysis-threads N] [--visits N] "
      "[evaluator options]\n"
      "  one JSON query per line on stdin, one JSON answer per analysed turn "
      "on stdout",
      args, specs, 0, &code);
  if (!cl) return code;
  absl::StatusOr<proto::EvaluatorConfig> evaluator_config =
      EvaluatorConfigFromCommandLine(*cl);
  if (!evaluator_config.ok())
    return Fail("analysis", evaluator_config.status(), kExitUsage);
  absl::StatusOr<int> threads = cl->GetInt("analysis-threads", 1, 1024);
  if (!threads.ok()) return Fail("analysis", threads.status(), kExitUsage);
  absl::StatusOr<int> visits = cl->GetInt("visits", 1, kMaxVisits);
  if (!visits.ok()) return Fail("analysis", visits.status(), kExitUsage);
  absl::StatusOr<uint64_t> seed = Seed(*cl);
  if (!seed.ok()) return Fail("analysis", seed.status(), kExitUsage);
  const std::string net = cl->Get("net");
  if (net != "random" && net != nn::kAutoNet) {
    // Check the net now (with the default game) so that a bad file is a
    // usage error rather than an error answer to every query. (`auto` is
    // the net of each query's game: a missing one is that query's error.)
    absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(DefaultGameName());
    if (game.ok()) {
      absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
          nn::MakeEvaluator(*evaluator_config, net, **game);
      if (!evaluator.ok() &&
          evaluator.status().code() != absl::StatusCode::kInvalidArgument) {
        return Fail("analysis", evaluator.status(), kExitInvalidInput);
      }
    }
  }

  protocol::AnalysisEngineOptions options;
  if (absl::Status s = search::SetSearchParam(&options.params, "ram_limit_mb",
                                              cl->Get("ram-mb"));
      !s.ok()) {
    return Fail("analysis",
                absl::InvalidArgumentError(Cat("--ram-mb: ", s.message())),
                kExitUsage);
  }
  absl::StatusOr<int> max_line = cl->GetInt("max-line-bytes", 64, 1 << 30);
  if (!max_line.ok()) return Fail("analysis", max_line.status(), kExitUsage);
  absl::StatusOr<int> max_depth = cl->GetInt("max-json-depth", 1, 1000);
  if (!max_depth.ok()) return Fail("analysis", max_depth.status(), kExitUsage);
  options.max_line_bytes = static_cast<size_t>(*max_line);
  options.max_json_depth = *max_depth;
  options.threads = *threads;
  options.net = net;
  options.default_max_visits = static_cast<uint64_t>(*visits);
  options.version = SourceVersion();
  options.seed = *seed;
  std::cin.tie(nullptr);
  protocol::AnalysisEngine engine(
      options, nn::MakeEvaluatorFactory(*evaluator_config), &std::cout);
  if (!engine.status().ok()) {
    return Fail("analysis", engine.status(), kExitInvalidInput);
  }
  return engine.Run(std::cin);
}

int RunPlay(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = GameOptionSpecs();
  Add(&specs, PositionOptionSpecs());
  Add(&specs, EvaluatorOptionSpecs());
  Add(&specs,
      {{"visits", "N", "800", "the engine's root visits per move"},
       {"movetime", "MS", "", "the engine's time per move instead of visits"},
       {"side", "first|second", "first",
        "your side: first (white / attackers) or second"},
       {"seed", "N", "1", "seed of the search"},
       {"help", "", "", "print this help"}});
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "play",
      "volkhv play [--game G] [--net X] [--visits N | --movetime MS] "
      "[--side first|second] [--position P] [--moves \"M1 M2 ...\"]",
      args, specs, 0, &code);
  if (!cl) return code;
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("play", game.status(), kExitUsage);
  absl::StatusOr<proto::EvaluatorConfig> evaluator_config =
      EvaluatorConfigFromCommandLine(*cl);
  if (!evaluator_config.ok())
    return Fail("play", evaluator_config.status(), kExitUsage);
  search::SearchLimits limits;
  if (cl->Given("movetime")) {
    absl::StatusOr<int> ms = cl->GetInt("movetime", 1, 86400000);
    if (!ms.ok()) return Fail("play", ms.status(), kExitUsage);
    limits.time_ms = *ms;
  } else {
    absl::StatusOr<int> visits = cl->GetInt("visits", 1, kMaxVisits);
    if (!visits.ok()) return Fail("play", visits.status(), kExitUsage);
    limits.visits = static_cast<uint64_t>(*visits);
  }
  const std::string side_text = cl->Get("side");
  if (side_text != "first" && side_text != "second") {
    return Fail("play",
                absl::InvalidArgumentError(
                    Cat("option '--side': expected first or second, got '",
                        side_text, "'")),
                kExitUsage);
  }
  const int user_side = side_text == "first" ? 0 : 1;
  absl::StatusOr<uint64_t> seed = Seed(*cl);
  if (!seed.ok()) return Fail("play", seed.status(), kExitUsage);
  absl::StatusOr<std::unique_ptr<GameState>> start =
      StateFromCommandLine(**game, *cl);
  if (!start.ok()) return Fail("play", start.status(), kExitInvalidInput);
  absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
      nn::MakeEvaluator(*evaluator_config, cl->Get("net"), **game);
  if (!evaluator.ok()) {
    return Fail("play", evaluator.status(), kExitInvalidInput);
  }
  search::Search search(search::SearchParams(), evaluator->get(),
                        GameProver(**game), *seed);
  search.SetHeuristic(GameHeuristic(**game));

  const GameInfo& info = (*game)->Info();
  std::unique_ptr<GameState> state = (*start)->Clone();
  std::vector<Move> history;
  const std::string help =
      "Type a move in the game's notation (e.g. e2-e4, b2xd4, f3(2)xf6 for "
      "the top two pieces of a stack), or:\n"
      "  moves   list the legal moves\n"
      "  undo    take back your last move and the engine's reply\n"
      "  board   draw the board again\n"
      "  help    this text\n"
      "  quit    leave the game\n";
  std::cout << "Volkhv: " << info.name << ". You play "
            << SideName(info, user_side) << ", Volkhv plays "
            << SideName(info, 1 - user_side) << ". Type 'help' for commands.\n";
  bool draw_board = true;
  std::string line;
  for (;;) {
    if (state->Result().IsOver()) {
      std::cout << state->BoardDiagram() << ResultLine(*state) << "\n";
      return kExitOk;
    }
    if (state->SideToMove() != user_side) {
      if (absl::Status s = search.SetPosition(**start, history); !s.ok()) {
        return Fail("play", s, kExitInvalidInput);
      }
      const search::SearchResult r = search.Run(limits);
      if (r.best_move.IsNull() || r.moves.empty()) {
        return Fail("play", absl::InternalError("the search found no move"),
                    kExitInvalidInput);
      }
      const search::MoveInfo& best = r.moves[0];
      std::cout << "Volkhv plays " << state->MoveText(best.move) << "   ("
                << Evaluation(best) << "; " << r.root_visits << " visits; pv "
                << JoinTexts(protocol::MoveTexts(*state, best.pv), 6) << ")\n";
      state->Play(best.move);
      history.push_back(best.move);
      draw_board = true;
      continue;
    }
    if (draw_board) {
      std::cout << state->BoardDiagram();
      if (state->InCheck()) std::cout << "Check!\n";
      draw_board = false;
    }
    std::cout << SideName(info, user_side) << " to move> " << std::flush;
    const protocol::LineRead read =
        protocol::ReadLine(std::cin, protocol::kDefaultMaxLineBytes, &line);
    if (read == protocol::LineRead::kEnd) {
      std::cout << "\nEnd of input: the game is left unfinished.\n";
      return kExitOk;
    }
    if (read == protocol::LineRead::kTooLong) {
      std::cout << "Input longer than " << protocol::kDefaultMaxLineBytes
                << " bytes; ignored.\n";
      continue;
    }
    const std::string_view input = Trim(line);
    if (input.empty()) continue;
    if (input == "quit" || input == "exit" || input == "resign") {
      std::cout << "Game left at ply " << state->PliesPlayed() << ".\n";
      return kExitOk;
    }
    if (input == "help" || input == "?") {
      std::cout << help;
      continue;
    }
    if (input == "board") {
      draw_board = true;
      continue;
    }
    if (input == "moves") {
      MoveList moves;
      state->LegalMoves(&moves);
      std::vector<std::string> texts;
      for (Move m : moves) texts.push_back(state->MoveText(m));
      std::sort(texts.begin(), texts.end());
      std::cout << moves.size() << " legal moves:";
      for (size_t i = 0; i < texts.size(); ++i) {
        std::cout << (i % 10 == 0 ? "\n  " : " ") << texts[i];
      }
      std::cout << "\n";
      continue;
    }
    if (input == "undo") {
      // Back to the user's previous turn: the engine's reply (if any) and
      // the user's move.
      int user_moves = 0;
      for (int ply = 0; ply < static_cast<int>(history.size()); ++ply) {
        if (((*start)->SideToMove() + ply) % 2 == user_side) ++user_moves;
      }
      if (user_moves == 0) {
        std::cout << "Nothing to undo.\n";
        continue;
      }
      do {
        state->Undo();
        history.pop_back();
      } while (state->SideToMove() != user_side && !history.empty());
      std::cout << "Taken back; " << SideName(info, user_side) << " to move.\n";
      draw_board = true;
      continue;
    }
    absl::StatusOr<Move> move = state->ParseMove(input);
    if (!move.ok()) {
      // The rules' messages name the input ("illegal move e2-e5: the pawn
      // on e2 cannot move to e5", "malformed move ...").
      std::string message = Cat(move.status().message());
      if (!message.empty() && message[0] >= 'a' && message[0] <= 'z') {
        message[0] = static_cast<char>(message[0] - 'a' + 'A');
      }
      std::cout << message
                << "\n(Type 'moves' for the legal moves, 'help' for "
                   "commands.)\n";
      continue;
    }
    std::cout << "You play " << state->MoveText(*move) << "\n";
    state->Play(*move);
    history.push_back(*move);
  }
}

int RunAnalyze(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = GameOptionSpecs();
  Add(&specs, PositionOptionSpecs());
  Add(&specs, EvaluatorOptionSpecs());
  Add(&specs,
      {{"game-file", "FILE", "",
        "analyse every position of a recorded game (game file format)"},
       {"game-index", "K", "1", "which game of --game-file (1 = the first)"},
       {"visits", "N", "800", "root visits per position"},
       {"top", "K", "5", "candidates shown per position"},
       {"seed", "N", "1", "seed of the search"},
       {"help", "", "", "print this help"}});
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "analyze",
      "volkhv analyze [--game G] (--position P [--moves \"M1 ...\"] | "
      "--game-file FILE [--game-index K]) [--visits N] [--top K] [--net X]",
      args, specs, 0, &code);
  if (!cl) return code;
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("analyze", game.status(), kExitUsage);
  absl::StatusOr<proto::EvaluatorConfig> evaluator_config =
      EvaluatorConfigFromCommandLine(*cl);
  if (!evaluator_config.ok())
    return Fail("analyze", evaluator_config.status(), kExitUsage);
  absl::StatusOr<int> visits = cl->GetInt("visits", 1, kMaxVisits);
  if (!visits.ok()) return Fail("analyze", visits.status(), kExitUsage);
  absl::StatusOr<int> top = cl->GetInt("top", 1, 10000);
  if (!top.ok()) return Fail("analyze", top.status(), kExitUsage);
  absl::StatusOr<uint64_t> seed = Seed(*cl);
  if (!seed.ok()) return Fail("analyze", seed.status(), kExitUsage);
  const bool from_file = cl->Given("game-file");
  if (from_file && (cl->Given("position") || cl->Given("moves"))) {
    return Fail("analyze",
                absl::InvalidArgumentError(
                    "give either --game-file or --position/--moves"),
                kExitUsage);
  }

  // The start position and the moves whose positions are analysed: with
  // --game-file every position of the game, else only the last one.
  std::unique_ptr<GameState> start;
  std::vector<Move> moves;
  int first_ply = 0;
  if (from_file) {
    absl::StatusOr<int> index = cl->GetInt("game-index", 1, 1000000);
    if (!index.ok()) return Fail("analyze", index.status(), kExitUsage);
    absl::StatusOr<std::vector<RecordedGame>> records =
        ReadGameFile(cl->Get("game-file"));
    if (!records.ok()) {
      return Fail("analyze", records.status(), kExitInvalidInput);
    }
    if (*index > static_cast<int>(records->size())) {
      return Fail("analyze",
                  absl::InvalidArgumentError(Cat("--game-index ", *index,
                                                 ": the file has ",
                                                 records->size(), " games")),
                  kExitInvalidInput);
    }
    const RecordedGame& record = (*records)[*index - 1];
    game = GameOfRecord(*cl, record);
    if (!game.ok()) {
      return Fail("analyze",
                  absl::InvalidArgumentError(
                      Cat("game ", *index, ": ", game.status().message())),
                  kExitInvalidInput);
    }
    std::string text = record.Tag("TFEN");
    if (text.empty()) text = record.Tag("Position");
    if (text.empty()) {
      start = (*game)->NewInitialState();
    } else {
      absl::StatusOr<std::unique_ptr<GameState>> parsed =
          (*game)->NewStateFromText(text);
      if (!parsed.ok()) {
        return Fail("analyze",
                    absl::InvalidArgumentError(
                        Cat("game ", *index,
                            ": start position: ", parsed.status().message())),
                    kExitInvalidInput);
      }
      start = *std::move(parsed);
    }
    std::unique_ptr<GameState> state = start->Clone();
    for (size_t i = 0; i < record.moves.size(); ++i) {
      absl::StatusOr<Move> move =
          state->Result().IsOver()
              ? absl::InvalidArgumentError("the game was already over")
              : state->ParseMove(record.moves[i]);
      if (!move.ok()) {
        return Fail("analyze",
                    absl::InvalidArgumentError(
                        Cat("game ", *index, ", ply ", i + 1, " (",
                            record.moves[i], "): ", move.status().message())),
                    kExitInvalidInput);
      }
      state->Play(*move);
      moves.push_back(*move);
    }
    std::string name = record.Tag("Game");
    std::cout << "Game " << *index
              << (name.empty() ? std::string() : Cat(": ", name)) << ", "
              << moves.size() << " plies\n";
  } else {
    absl::StatusOr<std::unique_ptr<GameState>> state =
        StateFromCommandLine(**game, *cl);
    if (!state.ok()) {
      return Fail("analyze", state.status(), kExitInvalidInput);
    }
    start = *std::move(state);
  }
  if (!from_file) first_ply = static_cast<int>(moves.size());

  absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
      nn::MakeEvaluator(*evaluator_config, cl->Get("net"), **game);
  if (!evaluator.ok()) {
    return Fail("analyze", evaluator.status(), kExitInvalidInput);
  }
  search::Search search(search::SearchParams(), evaluator->get(),
                        GameProver(**game), *seed);
  search.SetHeuristic(GameHeuristic(**game));
  search::SearchLimits limits;
  limits.visits = static_cast<uint64_t>(*visits);
  const GameInfo& info = (*game)->Info();
  for (int ply = first_ply; ply <= static_cast<int>(moves.size()); ++ply) {
    const std::span<const Move> prefix(moves.data(), ply);
    if (absl::Status s = search.SetPosition(*start, prefix); !s.ok()) {
      return Fail("analyze", s, kExitInvalidInput);
    }
    const GameState& root = search.root_state();
    std::cout << "\n";
    if (from_file) std::cout << "Ply " << ply << ": ";
    std::cout << "Position " << root.PositionText() << "\n"
              << SideName(info, root.SideToMove()) << " to move";
    if (from_file && ply < static_cast<int>(moves.size())) {
      std::cout << "; played: " << root.MoveText(moves[ply]);
    }
    std::cout << "\n";
    if (root.Result().IsOver()) {
      std::cout << ResultLine(root) << "\n";
      continue;
    }
    const search::SearchResult r = search.Run(limits);
    const std::array<int, 3> wdl = protocol::WdlPerMille(r.root_wdl);
    std::cout << absl::StrFormat(
        "root: %d visits, W/D/L %.1f/%.1f/%.1f %%, q %+.3f%s\n", r.root_visits,
        wdl[0] / 10.0, wdl[1] / 10.0, wdl[2] / 10.0, r.root_q,
        r.root_proven == search::Proven::kNone
            ? std::string()
            : Cat(", proven ", protocol::ProvenName(r.root_proven), " in ",
                  r.root_proven_plies, " plies"));
    PrintCandidates(root, r, *top);
    if (from_file && ply < static_cast<int>(moves.size())) {
      for (size_t k = 0; k < r.moves.size(); ++k) {
        if (r.moves[k].move != moves[ply]) continue;
        std::cout << absl::StrFormat(
            "played %s: rank %d of %d, %d visits, q %+.3f\n",
            root.MoveText(moves[ply]), k + 1, r.moves.size(), r.moves[k].visits,
            r.moves[k].q);
      }
    }
  }
  return kExitOk;
}

}  // namespace volkhv::cli
