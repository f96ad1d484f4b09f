#include "selfplay/uci_player.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "engine/games/games.h"
#include "engine/search/alphabeta.h"
#include "engine/util/camel_case.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::selfplay {
namespace {

using Clock = std::chrono::steady_clock;

// Whether `line`'s first word is `word`.
bool StartsWithWord(const std::string& line, const std::string& word) {
  return line.rfind(word, 0) == 0 &&
         (line.size() == word.size() || line[word.size()] == ' ' ||
          line[word.size()] == '\t');
}

// The score of an `info` line, if it has one: `score cp X` or `score mate
// N`, with depth and nodes.
std::optional<search::PlayerEval> InfoScore(const std::string& line) {
  std::vector<std::string_view> words;
  for (std::string_view w : Split(line, " ", true)) {
    if (!Trim(w).empty()) words.push_back(Trim(w));
  }
  search::PlayerEval eval;
  bool scored = false;
  for (size_t i = 1; i + 1 < words.size(); ++i) {
    const std::string_view key = words[i];
    if (key == "pv" || key == "string") break;
    if (key == "depth") {
      eval.depth = ToInt<int>(words[i + 1]).value_or(0);
    } else if (key == "nodes") {
      eval.nodes = ToInt<uint64_t>(words[i + 1]).value_or(0);
    } else if (key == "score" && i + 2 < words.size()) {
      const std::optional<int> value = ToInt<int>(words[i + 2]);
      if (!value) continue;
      if (words[i + 1] == "cp") {
        eval.score_cp =
            std::clamp(*value, -search::kMateBound + 1, search::kMateBound - 1);
        eval.mate_plies = 0;
        scored = true;
      } else if (words[i + 1] == "mate" && *value != 0) {
        const int moves = std::clamp(std::abs(*value), 1, 500);
        const int plies = *value > 0 ? 2 * moves - 1 : 2 * moves;
        eval.mate_plies = *value > 0 ? plies : -plies;
        eval.score_cp = *value > 0 ? search::kMateScore - plies
                                   : -(search::kMateScore - plies);
        scored = true;
      }
    }
  }
  if (!scored) return std::nullopt;
  return eval;
}

}  // namespace

absl::StatusOr<UciSpec> ParseUciSpec(
    const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& items) {
  UciSpec spec;
  spec.name = name;
  for (const auto& [key, value] : items) {
    const std::string field = Cat("player uci: ", key);
    if (key == "name") continue;
    if (key == "cmd") {
      if (value.empty()) {
        return absl::InvalidArgumentError("player uci: cmd must not be empty");
      }
      spec.command = value;
    } else if (key == "arg") {
      spec.args.push_back(value);
    } else if (key.rfind("option.", 0) == 0 && key.size() > 7) {
      spec.options.emplace_back(key.substr(7), value);
    } else if (key == "nodes") {
      absl::StatusOr<int64_t> x =
          ParseInt<int64_t>(value, field, 1, int64_t{1} << 50);
      if (!x.ok()) return x.status();
      spec.nodes = static_cast<uint64_t>(*x);
    } else if (key == "movetime") {
      absl::StatusOr<int64_t> x = ParseInt<int64_t>(value, field, 1, 1 << 30);
      if (!x.ok()) return x.status();
      spec.movetime_ms = *x;
    } else if (key == "depth") {
      absl::StatusOr<int> x = ParseInt<int>(value, field, 1, 1000);
      if (!x.ok()) return x.status();
      spec.depth = *x;
    } else if (key == "timeout") {
      absl::StatusOr<int64_t> x = ParseInt<int64_t>(value, field, 1, 1 << 30);
      if (!x.ok()) return x.status();
      spec.timeout_ms = *x;
    } else {
      return absl::InvalidArgumentError(
          Cat("player uci: unknown key '", key,
              "' (known: cmd, arg, option.NAME, nodes, movetime, depth, "
              "timeout, tc, name)"));
    }
  }
  if (spec.command.empty()) {
    return absl::InvalidArgumentError(
        "player uci: give cmd=PATH (the engine's program)");
  }
  return spec;
}

UciPlayer::UciPlayer(std::shared_ptr<const UciSpec> spec, const Game* game,
                     UciContext context)
    : spec_(std::move(spec)), game_(game), context_(std::move(context)) {}

UciPlayer::~UciPlayer() {
  if (process_.running()) process_.Stop(std::chrono::milliseconds(1000));
}

std::string UciPlayer::Fail(const std::string& what) {
  const std::string how = process_.Kill();
  return how.empty() ? what : Cat(what, " (the engine ", how, ")");
}

std::string UciPlayer::WaitFor(const std::string& word,
                               Clock::time_point deadline, std::string* line) {
  while (true) {
    switch (process_.ReadLine(deadline, context_.interrupt, line)) {
      case EngineProcess::Read::kLine:
        if (StartsWithWord(*line, word)) return "";
        if (StartsWithWord(*line, "info")) {
          if (std::optional<search::PlayerEval> e = InfoScore(*line)) {
            eval_ = e;
          }
        }
        break;
      case EngineProcess::Read::kTimeout:
        return Fail(Cat("no ", word, " in time"));
      case EngineProcess::Read::kClosed:
        return Fail(Cat("exited before ", word));
      case EngineProcess::Read::kCancelled:
        return Fail("interrupted");
    }
  }
}

std::string UciPlayer::Launch() {
  std::vector<std::string> argv = {spec_->command};
  argv.insert(argv.end(), spec_->args.begin(), spec_->args.end());
  if (absl::Status s = process_.Start(argv); !s.ok()) {
    return std::string(s.message());
  }
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(spec_->timeout_ms);
  std::string line;
  if (!process_.WriteLine("uci")) return Fail("cannot send uci");
  if (std::string e = WaitFor("uciok", deadline, &line); !e.empty()) return e;
  std::vector<std::pair<std::string, std::string>> options = {
      {"Game", game_->Info().name}};
  if (context_.variant != "standard") {
    absl::StatusOr<GameOptions> game_options =
        ParseGameOptionsText(context_.variant);
    if (game_options.ok()) {
      for (const auto& [key, value] : *game_options) {
        options.emplace_back(CamelCase(key), Cat(value));
      }
    }
  }
  options.insert(options.end(), spec_->options.begin(), spec_->options.end());
  for (const auto& [name, value] : options) {
    if (!process_.WriteLine(Cat("setoption name ", name, " value ", value))) {
      return Fail("cannot send setoption");
    }
  }
  return "";
}

void UciPlayer::NewGame() {
  eval_.reset();
  failure_.clear();
  start_failure_.clear();
  known_.reset();
  if (!process_.running()) {
    start_failure_ = Launch();
    if (!start_failure_.empty()) return;
  }
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(spec_->timeout_ms);
  std::string line;
  if (!process_.WriteLine("ucinewgame") || !process_.WriteLine("isready")) {
    start_failure_ = Fail("cannot send ucinewgame");
    return;
  }
  start_failure_ = WaitFor("readyok", deadline, &line);
}

std::string UciPlayer::PositionCommand(const GameState& state) {
  auto same = [](const GameState& x, const GameState& y) {
    return x.PliesPlayed() == y.PliesPlayed() && x.Hash() == y.Hash() &&
           x.PositionText() == y.PositionText();
  };
  // The state with its plies taken back, down to the game's start or to the
  // state of the last call (the same game, so far); the moves forward from
  // it, each found as the legal move that reaches the next state.
  std::vector<std::unique_ptr<GameState>> chain;
  chain.push_back(state.Clone());
  bool from_known = false;
  while (true) {
    const GameState& back = *chain.back();
    if (known_ != nullptr && back.PliesPlayed() == known_->PliesPlayed()) {
      from_known = same(back, *known_);
    }
    if (from_known || back.PliesPlayed() == 0) break;
    std::unique_ptr<GameState> earlier = back.Clone();
    earlier->Undo();
    chain.push_back(std::move(earlier));
  }
  std::reverse(chain.begin(), chain.end());
  std::string moves;
  MoveList legal;
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    GameState& walk = *chain[i];
    legal.clear();
    walk.LegalMoves(&legal);
    for (Move m : legal) {
      walk.Play(m);
      const bool found = walk.Hash() == chain[i + 1]->Hash() &&
                         walk.PositionText() == chain[i + 1]->PositionText();
      walk.Undo();
      if (found) {
        Append(&moves, " ", walk.MoveText(m));
        break;
      }
    }
  }
  if (!from_known) {
    const std::string start = chain.front()->PositionText();
    known_command_ = start == game_->NewInitialState()->PositionText()
                         ? std::string("position startpos")
                         : Cat("position tfen ", start);
    known_has_moves_ = false;
  }
  if (!moves.empty()) {
    if (!known_has_moves_) known_command_ += " moves";
    known_command_ += moves;
    known_has_moves_ = true;
  }
  known_ = state.Clone();
  return known_command_;
}

Move UciPlayer::ChooseMove(const GameState& state) {
  eval_.reset();
  failure_ = start_failure_;
  if (!failure_.empty()) return Move{};
  const auto start = Clock::now();
  std::string go = "go";
  int64_t wait_ms = spec_->timeout_ms + spec_->movetime_ms;
  if (clock_) {
    const char* side_names[2] = {"w", "b"};
    for (int side = 0; side < 2; ++side) {
      if (clock_->time_left_ms[side]) {
        Append(&go, " ", side_names[side], "time ",
               std::max<int64_t>(*clock_->time_left_ms[side], 0));
      }
    }
    for (int side = 0; side < 2; ++side) {
      if (clock_->increment_ms[side]) {
        Append(&go, " ", side_names[side], "inc ", *clock_->increment_ms[side]);
      }
    }
    if (clock_->moves_to_go) Append(&go, " movestogo ", *clock_->moves_to_go);
    const int side = state.SideToMove() & 1;
    if (clock_->time_left_ms[side]) {
      wait_ms = std::max<int64_t>(*clock_->time_left_ms[side], 0) +
                context_.margin_ms;
    }
  }
  if (spec_->nodes > 0) Append(&go, " nodes ", spec_->nodes);
  if (spec_->movetime_ms > 0) Append(&go, " movetime ", spec_->movetime_ms);
  if (spec_->depth > 0) Append(&go, " depth ", spec_->depth);
  if (!process_.WriteLine(PositionCommand(state)) || !process_.WriteLine(go)) {
    failure_ = Fail("cannot send the position");
    return Move{};
  }
  std::string line;
  // One millisecond past the deadline, so that a move that misses it reads
  // as late.
  failure_ = WaitFor("bestmove", start + std::chrono::milliseconds(wait_ms + 1),
                     &line);
  if (!failure_.empty()) return Move{};
  std::vector<std::string_view> words;
  for (std::string_view w : Split(line, " ", true)) {
    if (!Trim(w).empty()) words.push_back(Trim(w));
  }
  if (words.size() < 2) {
    failure_ = Fail(Cat("illegal move: '", line, "' names no move"));
    return Move{};
  }
  absl::StatusOr<Move> move = state.ParseMove(words[1]);
  MoveList legal;
  state.LegalMoves(&legal);
  if (!move.ok() || !legal.contains(*move)) {
    failure_ = Fail(
        Cat("illegal move '", words[1], "'",
            move.ok() ? std::string() : Cat(": ", move.status().message())));
    return Move{};
  }
  if (eval_) {
    eval_->seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
  }
  return *move;
}

}  // namespace volkhv::selfplay
