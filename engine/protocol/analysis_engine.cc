#include "engine/protocol/analysis_engine.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <system_error>
#include <utility>

#include "engine/games/games.h"
#include "engine/protocol/json_error.h"
#include "engine/protocol/line_reader.h"
#include "engine/protocol/score.h"
#include "engine/search/search.h"
#include "engine/util/strings.h"
#include "nlohmann/json.hpp"

namespace volkhv::protocol {
namespace {

using Json = nlohmann::ordered_json;
using OrderedJson = nlohmann::ordered_json;

// Numbers in answers: six decimals are plenty and keep lines short.
double Round6(double x) { return std::round(x * 1e6) / 1e6; }

OrderedJson WdlArray(const float wdl[3]) {
  return OrderedJson::array({Round6(wdl[0]), Round6(wdl[1]), Round6(wdl[2])});
}

std::string Dump(const OrderedJson& json) {
  return json.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

// The deepest nesting of arrays and objects in `text`, brackets inside
// strings not counted. A linear scan, so that a deep query is refused before
// the recursive parts of nlohmann's json (copies, dump) see it.
int JsonDepth(std::string_view text) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

const std::set<std::string, std::less<>>& KnownFields() {
  static const auto* const fields = new std::set<std::string, std::less<>>{
      "id",    "game",         "gameOptions", "position",
      "moves", "analyzeTurns", "maxVisits",   "includePolicy"};
  return *fields;
}

std::string PlayerName(const GameState& state) {
  const GameInfo& info = state.Info();
  return state.SideToMove() == 0 ? info.first_player_name
                                 : info.second_player_name;
}

}  // namespace

struct AnalysisEngine::GameEntry {
  std::unique_ptr<Game> game;
  std::shared_ptr<nn::Evaluator> evaluator;
};

struct AnalysisEngine::Task {
  Json id;
  int turn = 0;
  GameEntry* entry = nullptr;
  // Shared by the tasks of one query; the first `turn` moves are played.
  std::shared_ptr<const GameState> start;
  std::shared_ptr<const std::vector<Move>> moves;
  uint64_t max_visits = 0;
  bool include_policy = false;
};

AnalysisEngine::AnalysisEngine(AnalysisEngineOptions options,
                               nn::EvaluatorFactory factory, std::ostream* out)
    : options_(std::move(options)), factory_(std::move(factory)), out_(out) {
  const int threads = std::max(1, options_.threads);
  workers_.reserve(threads);
  for (int i = 0; i < threads; ++i) {
    try {
      workers_.emplace_back(&AnalysisEngine::Worker, this);
    } catch (const std::system_error& e) {
      status_ = absl::ResourceExhaustedError(
          Cat("cannot start analysis thread ", i + 1, " of ", threads, ": ",
              e.what()));
      break;
    }
  }
}

AnalysisEngine::~AnalysisEngine() { Finish(); }

void AnalysisEngine::WriteLine(const std::string& line) {
  std::lock_guard<std::mutex> lock(out_mu_);
  *out_ << line << '\n' << std::flush;
}

int AnalysisEngine::Run(std::istream& in) {
  std::string line;
  for (;;) {
    const LineRead read = ReadLine(in, options_.max_line_bytes, &line);
    if (read == LineRead::kEnd) break;
    if (read == LineRead::kTooLong) {
      WriteLine(Dump(OrderedJson{
          {"id", nullptr},
          {"error", Cat("query longer than ", options_.max_line_bytes,
                        " bytes (--max-line-bytes)")}}));
      continue;
    }
    Submit(line);
  }
  Finish();
  return 0;
}

void AnalysisEngine::Finish() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    closed_ = true;
  }
  queue_cv_.notify_all();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
}

absl::StatusOr<AnalysisEngine::GameEntry*> AnalysisEngine::Entry(
    const std::string& game, const GameOptions& game_options) {
  std::string key = game;
  for (const auto& [name, value] : game_options) {
    Append(&key, " ", name, "=", value);
  }
  auto it = entries_.find(key);
  if (it != entries_.end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<Game>> made = MakeGame(game, game_options);
  if (!made.ok()) return made.status();
  if (!factory_) return absl::FailedPreconditionError("no evaluator factory");
  absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
      factory_(options_.net, **made);
  if (!evaluator.ok()) {
    return absl::Status(evaluator.status().code(),
                        EvaluatorError(options_.net, evaluator.status()));
  }
  auto entry = std::make_unique<GameEntry>();
  entry->game = *std::move(made);
  entry->evaluator = *std::move(evaluator);
  GameEntry* raw = entry.get();
  entries_.emplace(std::move(key), std::move(entry));
  return raw;
}

void AnalysisEngine::Submit(std::string_view line) {
  line = Trim(line);
  if (line.empty()) return;
  if (JsonDepth(line) > options_.max_json_depth) {
    WriteLine(Dump(OrderedJson{
        {"id", nullptr},
        {"error", Cat("invalid JSON: nested deeper than ",
                      options_.max_json_depth, " (--max-json-depth)")}}));
    return;
  }
  if (workers_.empty()) {
    WriteLine(Dump(OrderedJson{{"id", nullptr},
                               {"error", std::string(status_.message())}}));
    return;
  }
  Json query;
  try {
    query = Json::parse(line);
  } catch (const Json::exception& e) {
    WriteLine(Dump(OrderedJson{
        {"id", nullptr}, {"error", "invalid JSON: " + JsonErrorMessage(e)}}));
    return;
  }
  Json id = nullptr;
  if (query.is_object() && query.contains("id")) id = query["id"];
  auto fail = [&](const std::string& message) {
    OrderedJson error;
    error["id"] = id;
    error["error"] = message;
    WriteLine(Dump(error));
  };
  if (!query.is_object()) return fail("a query must be a JSON object");
  if (!query.contains("id")) return fail("missing field 'id'");
  if (!id.is_string()) return fail("field 'id' must be a string");
  for (const auto& item : query.items()) {
    if (!KnownFields().contains(item.key())) {
      return fail(Cat("unknown field '", item.key(), "'"));
    }
  }

  std::string game_name(DefaultGameName());
  if (query.contains("game")) {
    if (!query["game"].is_string()) {
      return fail("field 'game' must be a string");
    }
    game_name = query["game"].get<std::string>();
  }
  GameOptions game_options;
  if (query.contains("gameOptions")) {
    const Json& options = query["gameOptions"];
    if (!options.is_object()) {
      return fail("field 'gameOptions' must be an object");
    }
    for (const auto& item : options.items()) {
      if (!item.value().is_number_integer()) {
        return fail(Cat("gameOptions: '", item.key(), "' must be an integer"));
      }
      const int64_t value = item.value().get<int64_t>();
      if (value < -1000000 || value > 1000000) {
        return fail(Cat("gameOptions: '", item.key(), "' is out of range"));
      }
      game_options[item.key()] = static_cast<int>(value);
    }
  }
  absl::StatusOr<GameEntry*> entry = Entry(game_name, game_options);
  if (!entry.ok()) return fail(std::string(entry.status().message()));
  const Game& game = *(*entry)->game;

  std::unique_ptr<GameState> start;
  if (query.contains("position")) {
    if (!query["position"].is_string()) {
      return fail("field 'position' must be a string");
    }
    absl::StatusOr<std::unique_ptr<GameState>> parsed =
        game.NewStateFromText(query["position"].get<std::string>());
    if (!parsed.ok()) {
      return fail(Cat("position: ", parsed.status().message()));
    }
    start = *std::move(parsed);
  } else {
    start = game.NewInitialState();
  }

  std::vector<Move> moves;
  if (query.contains("moves")) {
    const Json& list = query["moves"];
    if (!list.is_array()) {
      return fail("field 'moves' must be an array of strings");
    }
    std::unique_ptr<GameState> state = start->Clone();
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string()) {
        return fail(Cat("moves[", i, "] must be a string"));
      }
      const std::string text = list[i].get<std::string>();
      if (state->Result().IsOver()) {
        return fail(
            Cat("moves[", i, "] '", text, "': the game is already over"));
      }
      absl::StatusOr<Move> move = state->ParseMove(text);
      if (!move.ok()) {
        return fail(
            Cat("moves[", i, "] '", text, "': ", move.status().message()));
      }
      state->Play(*move);
      moves.push_back(*move);
    }
  }

  std::vector<int> turns;
  if (query.contains("analyzeTurns")) {
    const Json& list = query["analyzeTurns"];
    if (!list.is_array() || list.empty()) {
      return fail(
          "field 'analyzeTurns' must be a non-empty array of "
          "integers");
    }
    for (const Json& turn : list) {
      if (!turn.is_number_integer() || turn.get<int64_t>() < 0 ||
          turn.get<int64_t>() > static_cast<int64_t>(moves.size())) {
        return fail(Cat("analyzeTurns: ", turn.dump(),
                        " is not a turn from 0 to ", moves.size()));
      }
      turns.push_back(turn.get<int>());
    }
  } else {
    turns.push_back(static_cast<int>(moves.size()));
  }

  uint64_t max_visits = options_.default_max_visits;
  if (query.contains("maxVisits")) {
    const Json& visits = query["maxVisits"];
    if (!visits.is_number_integer() || visits.get<int64_t>() < 1 ||
        visits.get<uint64_t>() > options_.max_visits_cap) {
      return fail(Cat("field 'maxVisits' must be an integer from 1 to ",
                      options_.max_visits_cap));
    }
    max_visits = visits.get<uint64_t>();
  }
  bool include_policy = false;
  if (query.contains("includePolicy")) {
    if (!query["includePolicy"].is_boolean()) {
      return fail("field 'includePolicy' must be true or false");
    }
    include_policy = query["includePolicy"].get<bool>();
  }

  std::vector<std::unique_ptr<Task>> tasks;
  std::shared_ptr<const GameState> shared_start = std::move(start);
  auto shared_moves =
      std::make_shared<const std::vector<Move>>(std::move(moves));
  for (int turn : turns) {
    auto task = std::make_unique<Task>();
    task->id = id;
    task->turn = turn;
    task->entry = *entry;
    task->start = shared_start;
    task->moves = shared_moves;
    task->max_visits = max_visits;
    task->include_policy = include_policy;
    tasks.push_back(std::move(task));
  }
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    for (auto& task : tasks) queue_.push_back(std::move(task));
  }
  queue_cv_.notify_all();
}

void AnalysisEngine::Worker() {
  for (;;) {
    std::unique_ptr<Task> task;
    {
      std::unique_lock<std::mutex> lock(queue_mu_);
      queue_cv_.wait(lock, [this] { return closed_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closed and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    RunTask(*task);
  }
}

void AnalysisEngine::RunTask(Task& task) {
  search::Search search(options_.params, task.entry->evaluator.get(),
                        GameProver(*task.entry->game), options_.seed);
  const std::vector<Move> moves(task.moves->begin(),
                                task.moves->begin() + task.turn);
  if (const absl::Status status = search.SetPosition(*task.start, moves);
      !status.ok()) {
    WriteLine(Dump(OrderedJson{{"id", task.id},
                               {"error", std::string(status.message())}}));
    return;
  }
  search::SearchLimits limits;
  limits.visits = task.max_visits;
  const search::SearchResult r = search.Run(limits);
  const GameState& root = search.root_state();

  OrderedJson answer;
  answer["id"] = task.id;
  answer["turnNumber"] = task.turn;
  OrderedJson move_infos = OrderedJson::array();
  for (size_t k = 0; k < r.moves.size(); ++k) {
    const search::MoveInfo& m = r.moves[k];
    if (k > 0 && m.visits == 0 && m.proven == search::Proven::kNone) continue;
    OrderedJson info;
    info["move"] = root.MoveText(m.move);
    info["visits"] = m.visits;
    info["wdl"] = WdlArray(m.wdl);
    info["q"] = Round6(m.q);
    info["prior"] = Round6(m.prior);
    info["pv"] = MoveTexts(root, m.pv);
    info["order"] = move_infos.size();
    if (m.proven != search::Proven::kNone) {
      info["proven"] = ProvenName(m.proven);
      info["provenPlies"] = m.proven_plies;
    }
    move_infos.push_back(std::move(info));
  }
  answer["moveInfos"] = std::move(move_infos);
  OrderedJson root_info;
  root_info["visits"] = r.root_visits;
  root_info["wdl"] = WdlArray(r.root_wdl);
  root_info["q"] = Round6(r.root_q);
  root_info["currentPlayer"] = PlayerName(root);
  root_info["position"] = root.PositionText();
  if (r.root_proven != search::Proven::kNone) {
    root_info["proven"] = ProvenName(r.root_proven);
    root_info["provenPlies"] = r.root_proven_plies;
  }
  if (r.game_result.IsOver()) {
    root_info["gameOver"] =
        TerminationName(root.Info().name, r.game_result.termination);
  }
  answer["rootInfo"] = std::move(root_info);
  if (task.include_policy) {
    std::vector<const search::MoveInfo*> by_prior;
    for (const search::MoveInfo& m : r.moves) by_prior.push_back(&m);
    std::stable_sort(by_prior.begin(), by_prior.end(),
                     [](const search::MoveInfo* a, const search::MoveInfo* b) {
                       return a->prior > b->prior;
                     });
    OrderedJson policy = OrderedJson::array();
    for (const search::MoveInfo* m : by_prior) {
      policy.push_back(OrderedJson{{"move", root.MoveText(m->move)},
                                   {"prior", Round6(m->prior)}});
    }
    answer["policy"] = std::move(policy);
  }
  WriteLine(Dump(answer));
}

}  // namespace volkhv::protocol
