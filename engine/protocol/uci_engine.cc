#include "engine/protocol/uci_engine.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <optional>
#include <system_error>
#include <utility>

#include "engine/games/games.h"
#include "engine/protocol/line_reader.h"
#include "engine/protocol/score.h"
#include "engine/search/centipawns.h"
#include "engine/search/time_manager.h"
#include "engine/util/camel_case.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::protocol {
namespace {

constexpr int kMaxMultiPv = 500;
constexpr int64_t kMaxSeed = 2147483647;
// Threads the alpha-beta player accepts (and answers that it uses one).
constexpr int kMaxThreads = 1024;
constexpr int kMaxNnCacheEntries = 1 << 26;
// The deepest `go depth` of MCTS (a mean depth), and of alpha-beta, whose
// infinite and pondering searches go this deep and then wait.
constexpr int kMaxGoDepth = 1000;
constexpr int kMaxAlphaBetaDepth = 60;
// `go mate N`: 2N - 1 plies must fit the tree's proven-plies counter.
constexpr int kMaxGoMate = 127;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string Join(const std::vector<std::string_view>& tokens, size_t begin,
                 size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < tokens.size(); ++i) {
    if (!out.empty()) out += ' ';
    out += tokens[i];
  }
  return out;
}

}  // namespace

std::string EvaluatorError(const std::string& net, const absl::Status& status) {
  const std::string message = Cat(status.message());
  if (message.find(net) != std::string::npos) return message;
  return Cat("net '", net, "': ", message);
}

UciEngine::UciEngine(UciEngineOptions options, nn::EvaluatorFactory factory,
                     std::ostream* out)
    : factory_(std::move(factory)), out_(out), options_(std::move(options)) {
  options_.multipv = std::clamp(options_.multipv, 1, kMaxMultiPv);
}

UciEngine::~UciEngine() { StopSearch(); }

absl::Status UciEngine::Load() { return Prepare(); }

void UciEngine::Send(const std::string& line) {
  std::lock_guard<std::mutex> lock(out_mu_);
  *out_ << line << '\n' << std::flush;
}

void UciEngine::Error(std::string_view what) {
  Send(Cat("info string error ", what));
}

void UciEngine::JoinSearch() {
  if (thread_.joinable()) thread_.join();
  pondering_ = false;
}

void UciEngine::StopSearch() {
  if (!thread_.joinable()) return;
  // stop_ first: the thread reads it after pondering ends.
  stop_ = true;
  ponder_stop_ = true;
  JoinSearch();
}

void UciEngine::FinishSearch() {
  if (!thread_.joinable()) return;
  if (infinite_) {
    stop_ = true;
    ponder_stop_ = true;
  }
  JoinSearch();
}

void UciEngine::WaitForSearch() { JoinSearch(); }

void UciEngine::WaitFor(const std::atomic<bool>& flag) {
  while (!flag.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

namespace {

std::string_view FirstWord(std::string_view line) {
  const std::vector<std::string_view> tokens = Split(line, " \t\r\n", true);
  return tokens.empty() ? std::string_view() : tokens[0];
}

// Commands answered while a limited search runs, ahead of those waiting.
bool IsUrgent(std::string_view line) {
  const std::string_view word = FirstWord(line);
  return word == "stop" || word == "quit" || word == "isready" ||
         word == "ponderhit";
}

// Commands that must wait for a running limited search to end.
bool WaitsForSearch(std::string_view line) {
  const std::string_view word = FirstWord(line);
  return word == "ucinewgame" || word == "setoption" || word == "position" ||
         word == "go" || word == "d";
}

}  // namespace

bool UciEngine::NextCommand(Input& input, std::string* line) {
  std::unique_lock<std::mutex> lock(input.mu);
  for (;;) {
    if (!input.lines.empty()) {
      const bool blocked =
          searching_ && !infinite_ && WaitsForSearch(input.lines.front());
      if (!blocked) {
        *line = std::move(input.lines.front());
        input.lines.pop_front();
        return true;
      }
      // Commands answered ahead of the waiting one: `quit` anywhere; `stop`,
      // `ponderhit` and `isready` only before a queued `go` (a `stop` after
      // it is meant for the search that `go` will start).
      bool go_ahead = FirstWord(input.lines.front()) == "go";
      for (auto it = input.lines.begin() + 1; it != input.lines.end(); ++it) {
        const std::string_view word = FirstWord(*it);
        if (word == "go") go_ahead = true;
        if (word == "quit" || (!go_ahead && IsUrgent(*it))) {
          *line = std::move(*it);
          input.lines.erase(it);
          return true;
        }
      }
    } else if (input.ended) {
      return false;
    }
    input.cv.wait(lock);
  }
}

int UciEngine::Run(std::istream& in) {
  auto input = std::make_shared<Input>();
  input_ = input;
  const size_t max_line_bytes = options_.max_line_bytes;
  std::thread reader;
  try {
    reader = std::thread([input, stream = &in, max_line_bytes, this] {
      std::string line;
      for (;;) {
        const LineRead read = ReadLine(*stream, max_line_bytes, &line);
        std::lock_guard<std::mutex> lock(input->mu);
        if (read == LineRead::kEnd || input->quit) {
          input->ended = true;
          input->cv.notify_all();
          return;
        }
        if (read == LineRead::kTooLong) {
          // Answered here: the engine's output is line-buffered under its
          // own mutex, and the line is never handled.
          Error(Cat("command longer than ", max_line_bytes,
                    " bytes (--max-line-bytes); skipped"));
          continue;
        }
        input->lines.push_back(std::move(line));
        input->cv.notify_all();
      }
    });
  } catch (const std::system_error& e) {
    Error(Cat("cannot start the input thread: ", e.what()));
    input_.reset();
    return 1;
  }
  std::string line;
  bool quit = false;
  while (NextCommand(*input, &line)) {
    if (!Handle(line)) {
      quit = true;
      break;
    }
  }
  if (!quit) FinishSearch();
  bool reader_done = false;
  {
    std::lock_guard<std::mutex> lock(input->mu);
    input->quit = true;
    reader_done = input->ended;
  }
  // The reader of a stream other than std::cin ends at its next line or at
  // the end of input; std::cin may block until the process ends. Once
  // Run has returned the detached reader only touches `input` (shared) and
  // std::cin, and calls Error only for a line read after quit, which it
  // never reports (it sees `quit` first).
  if (reader_done || &in != &std::cin) {
    reader.join();
  } else {
    reader.detach();
  }
  input_.reset();
  return 0;
}

bool UciEngine::Handle(std::string_view line) {
  const std::vector<std::string_view> tokens = Split(line, " \t\r\n", true);
  if (tokens.empty()) return true;
  const std::string_view command = tokens[0];
  if (command == "quit") {
    StopSearch();
    return false;
  }
  if (command == "stop") {
    StopSearch();
    return true;
  }
  if (command == "isready") {
    CommandIsReady();
    return true;
  }
  if (command == "ponderhit") {
    CommandPonderHit();
    return true;
  }
  if (command == "uci") {
    CommandUci();
    return true;
  }
  if (command == "debug" || command == "register") return true;
  // Everything else changes or reads the search's state: a limited search
  // is finished first, an infinite one stopped.
  if (command == "ucinewgame") {
    FinishSearch();
    CommandNewGame();
  } else if (command == "setoption") {
    FinishSearch();
    CommandSetOption(tokens);
  } else if (command == "position") {
    FinishSearch();
    CommandPosition(tokens);
  } else if (command == "go") {
    FinishSearch();
    CommandGo(tokens);
  } else if (command == "d") {
    FinishSearch();
    CommandShow();
  } else {
    Error(Cat("unknown command '", command, "'"));
  }
  return true;
}

std::vector<std::string> UciEngine::OptionLines() const {
  std::vector<std::string> lines;
  std::string games;
  for (std::string_view name : GameNames()) Append(&games, " var ", name);
  lines.push_back(
      Cat("option name Game type combo default ", options_.game, games));
  for (const GameOptionInfo& option : AllGameOptions()) {
    const auto it = options_.game_options.find(option.name);
    lines.push_back(Cat(
        "option name ", CamelCase(option.name), " type spin default ",
        it == options_.game_options.end() ? option.default_value : it->second,
        " min ", option.min, " max ", option.max));
  }
  if (alphabeta()) {
    lines.push_back(
        Cat("option name Threads type spin default 1 min 1 max ", kMaxThreads));
    return lines;
  }
  // Threads is search_threads under UCI's name.
  for (const search::SearchParamInfo& info : search::SearchParamTable()) {
    if (info.name != "search_threads") continue;
    lines.push_back(Cat("option name Threads type spin default ",
                        options_.params.search_threads, " min ",
                        static_cast<int64_t>(info.min), " max ",
                        static_cast<int64_t>(info.max)));
  }
  lines.push_back(
      Cat("option name WeightsFile type string default ", options_.net));
  lines.push_back(Cat("option name Net type string default ", options_.net));
  if (options_.factory_for) {
    lines.push_back(Cat("option name Backend type combo default ",
                        options_.backend, " var auto var eigen var torch"));
    lines.push_back(Cat("option name NNCacheSize type spin default ",
                        options_.nn_cache_entries, " min 0 max ",
                        kMaxNnCacheEntries));
  }
  lines.push_back(Cat("option name MultiPV type spin default ",
                      options_.multipv, " min 1 max ", kMaxMultiPv));
  lines.push_back(Cat("option name Seed type spin default ", options_.seed,
                      " min 0 max ", kMaxSeed));
  for (const search::SearchParamInfo& info : search::SearchParamTable()) {
    const absl::StatusOr<std::string> value =
        search::GetSearchParam(options_.params, info.name);
    const std::string current = value.ok() ? *value : info.default_value;
    if (info.type == "int") {
      lines.push_back(Cat("option name ", info.name, " type spin default ",
                          current, " min ", static_cast<int64_t>(info.min),
                          " max ", static_cast<int64_t>(info.max)));
    } else if (info.type == "bool") {
      lines.push_back(
          Cat("option name ", info.name, " type check default ", current));
    } else {
      lines.push_back(
          Cat("option name ", info.name, " type string default ", current));
    }
  }
  return lines;
}

void UciEngine::CommandUci() {
  Send(alphabeta() ? Cat("id name Volkhv ", options_.alphabeta->name)
                   : std::string("id name Volkhv"));
  Send("id author the Volkhv authors");
  for (const std::string& line : OptionLines()) Send(line);
  Send("uciok");
}

void UciEngine::CommandIsReady() {
  // While a search runs everything is loaded already.
  if (!thread_.joinable()) EnsureSearch();
  Send("readyok");
}

void UciEngine::CommandNewGame() {
  if (search_ != nullptr) search_->ClearTree();
  if (alphabeta_ != nullptr) alphabeta_->Clear();
  if (game_ != nullptr) {
    start_ = game_->NewInitialState();
    moves_.clear();
    has_position_ = true;
  }
}

bool UciEngine::MakeCurrentGame() {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGame(options_.game, OptionsFor(options_.game, options_.game_options));
  if (!game.ok()) {
    Error(Cat(game.status().message()));
    return false;
  }
  search_.reset();
  evaluator_.reset();
  alphabeta_.reset();
  heuristic_.reset();
  game_ = *std::move(game);
  start_ = game_->NewInitialState();
  moves_.clear();
  has_position_ = true;
  return true;
}

absl::Status UciEngine::Prepare() {
  if (game_ == nullptr) {
    absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(
        options_.game, OptionsFor(options_.game, options_.game_options));
    if (!game.ok()) return game.status();
    game_ = *std::move(game);
    start_ = game_->NewInitialState();
    moves_.clear();
    has_position_ = true;
  }
  if (alphabeta()) {
    if (alphabeta_ == nullptr) {
      absl::StatusOr<std::unique_ptr<Heuristic>> heuristic =
          MakeHeuristic(game_->Info());
      if (!heuristic.ok()) return heuristic.status();
      heuristic_ = *std::move(heuristic);
      alphabeta_ = std::make_unique<search::AlphaBetaSearch>(
          heuristic_.get(), options_.alphabeta->options);
    }
    return absl::OkStatus();
  }
  if (evaluator_ == nullptr) {
    search_.reset();
    if (!factory_) return absl::FailedPreconditionError("no evaluator factory");
    absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
        factory_(options_.net, *game_);
    if (!evaluator.ok()) {
      return absl::Status(evaluator.status().code(),
                          EvaluatorError(options_.net, evaluator.status()));
    }
    evaluator_ = *std::move(evaluator);
  }
  if (search_ == nullptr) {
    search_ = std::make_unique<search::Search>(
        options_.params, evaluator_.get(), GameProver(*game_), options_.seed);
    search_->SetHeuristic(GameHeuristic(*game_));
  }
  return absl::OkStatus();
}

bool UciEngine::EnsureSearch() {
  if (const absl::Status status = Prepare(); !status.ok()) {
    Error(Cat(status.message()));
    return false;
  }
  return true;
}

void UciEngine::ChangeEvaluator(std::string_view option, const std::string& net,
                                const std::string& backend, int cache_entries) {
  if (game_ == nullptr && !MakeCurrentGame()) return;
  const bool same_settings =
      backend == options_.backend && cache_entries == options_.nn_cache_entries;
  nn::EvaluatorFactory factory =
      same_settings ? factory_ : options_.factory_for(backend, cache_entries);
  absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
      factory ? factory(net, *game_)
              : absl::StatusOr<std::shared_ptr<nn::Evaluator>>(
                    absl::FailedPreconditionError("no evaluator factory"));
  if (!evaluator.ok()) {
    Error(Cat("setoption ", option, " refused: ",
              EvaluatorError(net, evaluator.status()), "; the net stays '",
              options_.net, "', the backend ", options_.backend, ", the cache ",
              options_.nn_cache_entries, " entries"));
    return;
  }
  search_.reset();
  evaluator_ = *std::move(evaluator);
  factory_ = std::move(factory);
  options_.net = net;
  options_.backend = backend;
  options_.nn_cache_entries = cache_entries;
}

void UciEngine::CommandSetOption(const std::vector<std::string_view>& tokens) {
  if (tokens.size() < 3 || tokens[1] != "name") {
    Error("setoption: expected 'setoption name X [value Y]'");
    return;
  }
  size_t value_at = tokens.size();
  for (size_t i = 2; i < tokens.size(); ++i) {
    if (tokens[i] == "value") {
      value_at = i;
      break;
    }
  }
  const std::string name = Join(tokens, 2, value_at);
  const std::string value = Join(tokens, value_at + 1, tokens.size());
  if (name.empty()) {
    Error("setoption: the option name is missing");
    return;
  }
  const std::string key = Lower(name);
  auto bad_value = [&](std::string_view why) {
    Error(
        Cat("setoption: bad value '", value, "' for option ", name, ": ", why));
  };

  if (key == "game") {
    const std::vector<std::string_view> names = GameNames();
    if (std::find(names.begin(), names.end(), value) == names.end()) {
      bad_value(Cat("known games: ", GameNameList()));
      return;
    }
    if (value == options_.game && game_ != nullptr) return;
    const std::string old = options_.game;
    options_.game = value;
    if (!MakeCurrentGame()) options_.game = old;
    return;
  }
  for (const GameOptionInfo& option : AllGameOptions()) {
    if (key != Lower(CamelCase(option.name))) continue;
    const std::optional<int64_t> parsed = ToInt<int64_t>(value);
    if (!parsed || *parsed < option.min || *parsed > option.max) {
      bad_value(
          Cat("expected an integer from ", option.min, " to ", option.max));
      return;
    }
    const GameOptions old = options_.game_options;
    const auto it = old.find(option.name);
    if (*parsed == (it == old.end() ? option.default_value : it->second)) {
      return;
    }
    options_.game_options[option.name] = static_cast<int>(*parsed);
    // Games without the option play on as they are.
    if (OptionsFor(options_.game, old) !=
            OptionsFor(options_.game, options_.game_options) &&
        !MakeCurrentGame()) {
      options_.game_options = old;
    }
    return;
  }
  if (key == "threads") {
    if (!alphabeta()) {
      // UCI's name of the search_threads parameter: threads growing one
      // tree.
      search::SearchParams params = options_.params;
      const absl::Status status =
          search::SetSearchParam(&params, "search_threads", value);
      if (!status.ok()) {
        Error(Cat("setoption: Threads: ", status.message()));
        return;
      }
      options_.params = params;
      if (search_ != nullptr) search_->SetParams(params);
      return;
    }
    const std::optional<int64_t> threads = ToInt<int64_t>(value);
    if (!threads || *threads < 1 || *threads > kMaxThreads) {
      bad_value(Cat("expected an integer from 1 to ", kMaxThreads));
      return;
    }
    // The alpha-beta search has one thread: say so rather than pretend.
    if (*threads > 1) {
      Send(Cat("info string Threads ", *threads, ": the player ",
               options_.alphabeta->name,
               " searches on one thread; Threads stays 1"));
    }
    return;
  }
  const bool mcts_option =
      key == "net" || key == "weightsfile" || key == "backend" ||
      key == "nncachesize" || key == "multipv" || key == "seed" ||
      std::any_of(search::SearchParamTable().begin(),
                  search::SearchParamTable().end(),
                  [&key](const search::SearchParamInfo& info) {
                    return Lower(info.name) == key;
                  });
  if (alphabeta() && mcts_option) {
    Error(Cat("setoption: option ", name, " does not apply to the player ",
              options_.alphabeta->name));
    return;
  }
  if (key == "net" || key == "weightsfile") {
    if (value.empty()) {
      bad_value("expected 'auto', 'random' or a weights file");
      return;
    }
    if (value == options_.net && evaluator_ != nullptr) return;
    ChangeEvaluator(name, value, options_.backend, options_.nn_cache_entries);
    return;
  }
  if ((key == "backend" || key == "nncachesize") && !options_.factory_for) {
    Error(Cat("unknown option '", name, "'"));
    return;
  }
  if (key == "backend") {
    if (value != "auto" && value != "eigen" && value != "torch") {
      bad_value("expected auto, eigen or torch");
      return;
    }
    if (value == options_.backend && evaluator_ != nullptr) return;
    ChangeEvaluator(name, options_.net, value, options_.nn_cache_entries);
    return;
  }
  if (key == "nncachesize") {
    const std::optional<int64_t> entries = ToInt<int64_t>(value);
    if (!entries || *entries < 0 || *entries > kMaxNnCacheEntries) {
      bad_value(Cat("expected an integer from 0 to ", kMaxNnCacheEntries));
      return;
    }
    if (*entries == options_.nn_cache_entries && evaluator_ != nullptr) return;
    ChangeEvaluator(name, options_.net, options_.backend,
                    static_cast<int>(*entries));
    return;
  }
  if (key == "multipv") {
    const std::optional<int64_t> k = ToInt<int64_t>(value);
    if (!k || *k < 1 || *k > kMaxMultiPv) {
      bad_value(Cat("expected an integer from 1 to ", kMaxMultiPv));
      return;
    }
    options_.multipv = static_cast<int>(*k);
    return;
  }
  if (key == "seed") {
    const std::optional<int64_t> seed = ToInt<int64_t>(value);
    if (!seed || *seed < 0 || *seed > kMaxSeed) {
      bad_value(Cat("expected an integer from 0 to ", kMaxSeed));
      return;
    }
    options_.seed = static_cast<uint64_t>(*seed);
    search_.reset();
    return;
  }
  for (const search::SearchParamInfo& info : search::SearchParamTable()) {
    if (Lower(info.name) != key) continue;
    search::SearchParams params = options_.params;
    const absl::Status status =
        search::SetSearchParam(&params, info.name, value);
    if (!status.ok()) {
      Error(Cat("setoption: ", status.message()));
      return;
    }
    options_.params = params;
    if (search_ != nullptr) search_->SetParams(params);
    return;
  }
  Error(Cat("unknown option '", name, "'"));
}

void UciEngine::CommandPosition(const std::vector<std::string_view>& tokens) {
  // Whatever goes wrong below leaves no position: a `go` after a rejected
  // position must not search the previous one.
  has_position_ = false;
  if (game_ == nullptr && !MakeCurrentGame()) return;
  has_position_ = false;
  if (tokens.size() < 2) {
    Error("position: expected 'startpos' or 'tfen TEXT'");
    return;
  }
  std::unique_ptr<GameState> start;
  size_t next = 0;
  if (tokens[1] == "startpos") {
    start = game_->NewInitialState();
    next = 2;
  } else if (tokens[1] == "tfen" || tokens[1] == "fen") {
    next = 2;
    while (next < tokens.size() && tokens[next] != "moves") ++next;
    const std::string text = Join(tokens, 2, next);
    if (text.empty()) {
      Error(Cat("position: the ", tokens[1], " text is missing"));
      return;
    }
    absl::StatusOr<std::unique_ptr<GameState>> parsed =
        game_->NewStateFromText(text);
    if (!parsed.ok()) {
      Error(Cat("position: ", parsed.status().message()));
      return;
    }
    start = *std::move(parsed);
  } else {
    Error(Cat("position: expected 'startpos' or 'tfen TEXT', got '", tokens[1],
              "'"));
    return;
  }
  std::vector<Move> moves;
  if (next < tokens.size()) {
    if (tokens[next] != "moves") {
      Error(
          Cat("position: unexpected '", tokens[next], "' (expected 'moves')"));
      return;
    }
    std::unique_ptr<GameState> state = start->Clone();
    for (size_t i = next + 1; i < tokens.size(); ++i) {
      const size_t ply = i - next;
      if (state->Result().IsOver()) {
        Error(Cat("position: move ", ply, " '", tokens[i],
                  "': the game is already over"));
        return;
      }
      absl::StatusOr<Move> move = state->ParseMove(tokens[i]);
      if (!move.ok()) {
        Error(Cat("position: move ", ply, " '", tokens[i],
                  "': ", move.status().message()));
        return;
      }
      state->Play(*move);
      moves.push_back(*move);
    }
  }
  start_ = std::move(start);
  moves_ = std::move(moves);
  has_position_ = true;
}

std::unique_ptr<GameState> UciEngine::CurrentState() const {
  std::unique_ptr<GameState> state = start_->Clone();
  for (Move move : moves_) state->Play(move);
  return state;
}

namespace {

bool IsGoKeyword(std::string_view word) {
  for (std::string_view keyword :
       {"nodes", "visits", "movetime", "wtime", "btime", "winc", "binc",
        "movestogo", "depth", "mate", "infinite", "ponder", "searchmoves"}) {
    if (word == keyword) return true;
  }
  return false;
}

}  // namespace

std::optional<UciEngine::Go> UciEngine::ParseGo(
    const std::vector<std::string_view>& tokens) {
  Go go;
  search::TimeControl& control = go.control;
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string_view word = tokens[i];
    if (word == "infinite") {
      control.infinite = true;
      continue;
    }
    if (word == "ponder") {
      go.ponder = true;
      continue;
    }
    if (word == "searchmoves") {
      while (i + 1 < tokens.size() && !IsGoKeyword(tokens[i + 1])) {
        go.searchmoves.emplace_back(tokens[++i]);
      }
      if (go.searchmoves.empty()) {
        Error("go: 'searchmoves' needs at least one move");
        return std::nullopt;
      }
      continue;
    }
    if (word == "nodes" || word == "visits" || word == "movetime" ||
        word == "wtime" || word == "btime" || word == "winc" ||
        word == "binc" || word == "movestogo" || word == "depth" ||
        word == "mate") {
      if (i + 1 >= tokens.size()) {
        Error(Cat("go: '", word, "' needs a number"));
        return std::nullopt;
      }
      const std::optional<int64_t> value = ToInt<int64_t>(tokens[i + 1]);
      // Clock times may go negative in some GUIs; increments may be 0; a
      // zero limit would mean none, so limits must be positive.
      const bool clock = word == "wtime" || word == "btime";
      const bool increment_word = word == "winc" || word == "binc";
      const int64_t min = clock ? INT64_MIN : increment_word ? 0 : 1;
      if (!value || *value < min) {
        Error(Cat("go: '", word, "' needs ",
                  min == 0 ? "a non-negative" : "a positive", " integer, got '",
                  tokens[i + 1], "'"));
        return std::nullopt;
      }
      if ((word == "depth" && *value > kMaxGoDepth) ||
          (word == "mate" && *value > kMaxGoMate)) {
        Error(Cat("go: '", word, "' needs an integer from 1 to ",
                  word == "depth" ? kMaxGoDepth : kMaxGoMate, ", got '",
                  tokens[i + 1], "'"));
        return std::nullopt;
      }
      ++i;
      if (word == "nodes") {
        control.nodes = static_cast<uint64_t>(*value);
      } else if (word == "visits") {
        control.visits = static_cast<uint64_t>(*value);
      } else if (word == "movetime") {
        control.movetime_ms = *value;
      } else if (word == "wtime") {
        control.time_left_ms[0] = *value;
      } else if (word == "btime") {
        control.time_left_ms[1] = *value;
      } else if (word == "winc") {
        control.increment_ms[0] = *value;
      } else if (word == "binc") {
        control.increment_ms[1] = *value;
      } else if (word == "depth") {
        control.depth = static_cast<int>(*value);
      } else if (word == "mate") {
        control.mate = static_cast<int>(*value);
      } else {
        control.moves_to_go = *value;
      }
      continue;
    }
    Error(Cat("go: unknown parameter '", word, "'"));
    return std::nullopt;
  }
  return go;
}

bool UciEngine::StartThread(std::function<void()> body) {
  stop_ = false;
  ponder_stop_ = false;
  searching_ = true;
  try {
    thread_ = std::thread([this, body = std::move(body)] {
      body();
      // Wakes Run, whose next command may be waiting for this search.
      std::shared_ptr<Input> input = input_;
      if (input != nullptr) {
        std::lock_guard<std::mutex> lock(input->mu);
        searching_ = false;
        input->cv.notify_all();
      } else {
        searching_ = false;
      }
    });
  } catch (const std::system_error& e) {
    searching_ = false;
    pondering_ = false;
    Error(Cat("go: cannot start the search thread: ", e.what()));
    return false;
  }
  return true;
}

void UciEngine::CommandGo(const std::vector<std::string_view>& tokens) {
  std::optional<Go> go = ParseGo(tokens);
  if (!go.has_value()) return;
  if (!has_position_) {
    // As lc0: an error and no move; the GUI sent a position the engine
    // could not take, and a move for another one would be wrong.
    Error(
        "go: no position: the last 'position' command was rejected; send a "
        "valid one");
    return;
  }
  if (!EnsureSearch()) {
    Send("bestmove (none)");
    return;
  }
  std::unique_ptr<GameState> root = CurrentState();
  std::vector<std::string> searchmoves;
  for (const std::string& text : go->searchmoves) {
    absl::StatusOr<Move> move = root->ParseMove(text);
    if (!move.ok()) {
      Error(Cat("go: searchmoves '", text, "': ", move.status().message()));
      return;
    }
    searchmoves.push_back(root->MoveText(*move));
  }
  const int side = root->SideToMove() & 1;

  if (alphabeta()) {
    if (!searchmoves.empty()) {
      Error(Cat("go: searchmoves: the player ", options_.alphabeta->name,
                " searches every move"));
      return;
    }
    if (root->Result().IsOver()) {
      Send(Cat("info string game over: ", OutcomeName(root->Result().outcome),
               " for the side to move (",
               TerminationName(root->Info().name, root->Result().termination),
               ")"));
      Send("bestmove (none)");
      return;
    }
    const search::TimeControl& c = go->control;
    const search::SearchLimits mapped = search::SearchLimitsFor(c, side);
    search::AlphaBetaLimits limits;
    const bool bare = c.nodes == 0 && c.visits == 0 && c.movetime_ms == 0 &&
                      !c.time_left_ms[side].has_value() && c.depth == 0 &&
                      c.mate == 0 && !c.infinite;
    if (bare) {
      limits = options_.alphabeta->limits;
    } else {
      limits.time_ms = mapped.time_ms;
      limits.nodes = std::max(c.nodes, c.visits);
      limits.depth = std::min(c.depth > 0  ? c.depth
                              : c.mate > 0 ? 2 * c.mate - 1
                                           : 0,
                              kMaxAlphaBetaDepth);
      if (limits.time_ms == 0 && limits.nodes == 0 && limits.depth == 0) {
        limits.depth = kMaxAlphaBetaDepth;  // an infinite search
      }
    }
    const bool infinite = !bare && mapped.infinite;
    infinite_ = infinite || go->ponder;
    pondering_ = go->ponder;
    after_ponderhit_infinite_ = infinite;
    const bool ponder = go->ponder;
    auto shared_root =
        std::make_shared<std::unique_ptr<GameState>>(std::move(root));
    StartThread([this, shared_root, limits, infinite, ponder] {
      AlphaBetaThread(std::move(*shared_root), limits, infinite, ponder);
    });
    return;
  }

  if (const absl::Status status = search_->SetPosition(*start_, moves_);
      !status.ok()) {
    Error(Cat("go: ", status.message()));
    Send("bestmove (none)");
    return;
  }
  std::vector<search::MoveRule> filter;
  if (!searchmoves.empty()) {
    filter.push_back({.side = side,
                      .until_depth = 1,
                      .allow = true,
                      .moves = std::move(searchmoves)});
  }
  search_->SetMoveFilter(std::move(filter));
  search::SearchLimits limits = search::SearchLimitsFor(go->control, side);
  limits.progress_interval_ms = options_.progress_interval_ms;
  infinite_ = limits.infinite || go->ponder;
  pondering_ = go->ponder;
  after_ponderhit_infinite_ = limits.infinite;
  const bool ponder = go->ponder;
  if (!StartThread([this, limits, ponder] { SearchThread(limits, ponder); })) {
    Send("bestmove (none)");
  }
}

void UciEngine::CommandPonderHit() {
  // Only a pondering search can be hit; otherwise there is nothing to do.
  if (!thread_.joinable() || !pondering_) return;
  pondering_ = false;
  infinite_ = after_ponderhit_infinite_;
  ponder_stop_ = true;
}

void UciEngine::SearchThread(search::SearchLimits limits, bool ponder) {
  const search::ProgressCallback report =
      [this](const search::SearchResult& r) { SendReport(r); };
  search::SearchResult result;
  if (ponder) {
    search::SearchLimits pondering = limits;
    pondering.infinite = true;
    result = search_->Run(pondering, report, &ponder_stop_);
    // ponderhit: the same tree, searched on with the go's own limits.
    if (!stop_.load()) result = search_->Run(limits, report, &stop_);
  } else {
    result = search_->Run(limits, report, &stop_);
  }
  if (result.stop_reason == search::StopReason::kGameOver) {
    Send(Cat("info string game over: ", OutcomeName(result.game_result.outcome),
             " for the side to move (",
             TerminationName(search_->root_state().Info().name,
                             result.game_result.termination),
             ")"));
    Send("bestmove (none)");
    return;
  }
  if (result.best_move.IsNull()) {
    // Stopped before the root was expanded: one playout expands it, so
    // that a legal move is always answered.
    search::SearchLimits one;
    one.nodes = 1;
    result = search_->Run(one);
  }
  SendReport(result);
  if (result.best_move.IsNull()) {
    Send("bestmove (none)");
    return;
  }
  const GameState& root = search_->root_state();
  std::string line = Cat("bestmove ", root.MoveText(result.best_move));
  for (const search::MoveInfo& m : result.moves) {
    if (m.move != result.best_move) continue;
    const std::vector<std::string> pv = MoveTexts(root, m.pv);
    if (pv.size() >= 2) Append(&line, " ponder ", pv[1]);
    break;
  }
  Send(line);
}

void UciEngine::AlphaBetaThread(std::unique_ptr<GameState> root,
                                search::AlphaBetaLimits limits, bool infinite,
                                bool ponder) {
  search::AlphaBetaLimits deepest;
  deepest.depth = kMaxAlphaBetaDepth;
  search::AlphaBetaResult result;
  bool searched = false;
  if (ponder) {
    result = alphabeta_->Search(*root, deepest, &ponder_stop_);
    WaitFor(ponder_stop_);
    searched = stop_.load();
  }
  if (!searched) {
    result = alphabeta_->Search(*root, infinite ? deepest : limits, &stop_);
    if (infinite) WaitFor(stop_);
  }
  std::string line = Cat(
      "info depth ", result.depth, " seldepth ",
      std::max(result.depth, result.seldepth), " nodes ", result.nodes, " nps ",
      static_cast<int64_t>(
          result.seconds > 0 ? std::llround(result.nodes / result.seconds) : 0),
      " time ", static_cast<int64_t>(std::llround(result.seconds * 1000)));
  if (const int mate = result.MatePlies(); mate != 0) {
    Append(&line, " score mate ",
           *MateInMoves(mate > 0 ? search::Proven::kWin : search::Proven::kLoss,
                        std::abs(mate)));
  } else {
    Append(&line, " score cp ", result.score);
  }
  const std::vector<std::string> pv = MoveTexts(*root, result.pv);
  if (!pv.empty()) {
    Append(&line, " pv");
    for (const std::string& text : pv) Append(&line, " ", text);
  }
  Send(line);
  if (result.best_move.IsNull()) {
    Send("bestmove (none)");
    return;
  }
  line = Cat("bestmove ", root->MoveText(result.best_move));
  if (pv.size() >= 2) Append(&line, " ponder ", pv[1]);
  Send(line);
}

void UciEngine::SendReport(const search::SearchResult& r) {
  if (r.moves.empty()) return;
  const GameState& root = search_->root_state();
  const int depth = std::max(1, static_cast<int>(std::lround(r.average_depth)));
  const int seldepth = std::max(depth, r.max_depth);
  int lines = 0;
  for (size_t k = 0; k < r.moves.size() && lines < options_.multipv; ++k) {
    const search::MoveInfo& m = r.moves[k];
    const bool known = m.visits > 0 || m.proven != search::Proven::kNone;
    if (k > 0 && !known) break;
    std::string line = Cat("info depth ", depth, " seldepth ", seldepth);
    if (options_.multipv > 1) Append(&line, " multipv ", lines + 1);
    Append(&line, " nodes ", r.playouts, " nps ",
           static_cast<int64_t>(std::llround(r.playouts_per_second)), " time ",
           static_cast<int64_t>(std::llround(r.elapsed_seconds * 1000)));
    if (options_.params.ram_limit_mb > 0) {
      // How full the tree's memory cap is, in per mille (UCI's hashfull).
      const double cap = options_.params.ram_limit_mb * 1024 * 1024;
      Append(&line, " hashfull ",
             static_cast<int>(std::min(1000.0, 1000 * r.tree_bytes / cap)));
    }
    const std::optional<int> mate = MateInMoves(m.proven, m.proven_plies);
    if (mate.has_value()) {
      Append(&line, " score mate ", *mate);
    } else {
      Append(&line, " score cp ",
             search::CentipawnsFromQ(known ? m.q : r.root_q));
    }
    const std::array<int, 3> wdl = WdlPerMille(known ? m.wdl : r.root_wdl);
    Append(&line, " wdl ", wdl[0], " ", wdl[1], " ", wdl[2]);
    // lc0's movesleft: the plies to the end, with a net that has the head.
    const float moves_left = known ? m.moves_left : r.root_moves_left;
    if (moves_left >= 0) {
      Append(&line, " movesleft ", static_cast<int>(std::lround(moves_left)));
    }
    Append(&line, " pv");
    for (const std::string& text : MoveTexts(root, m.pv)) {
      Append(&line, " ", text);
    }
    Send(line);
    ++lines;
  }
}

void UciEngine::CommandShow() {
  if (game_ == nullptr && !MakeCurrentGame()) return;
  if (!has_position_) {
    Error("d: no position: the last 'position' command was rejected");
    return;
  }
  std::unique_ptr<GameState> state = CurrentState();
  const std::string diagram = state->BoardDiagram();
  for (std::string_view row : Split(diagram, "\n", true)) {
    Send(Cat("info string ", row));
  }
  Send(Cat("info string position ", state->PositionText()));
}

}  // namespace volkhv::protocol
