#include "engine/protocol/analysis_engine.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
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
      "id",         "game",          "gameOptions",
      "position",   "moves",         "analyzeTurns",
      "maxVisits",  "includePolicy", "reportDuringSearchEvery",
      "allowMoves", "avoidMoves",    "overrideSettings",
      "priority",   "action"};
  return *fields;
}

const std::set<std::string, std::less<>>& KnownActionFields() {
  static const auto* const fields = new std::set<std::string, std::less<>>{
      "id", "action", "terminateId", "turnNumbers"};
  return *fields;
}

std::string PlayerName(const GameState& state) {
  const GameInfo& info = state.Info();
  return state.SideToMove() == 0 ? info.first_player_name
                                 : info.second_player_name;
}

// A JSON scalar as the text SetSearchParam reads; an error for the others.
absl::StatusOr<std::string> SettingText(const Json& value) {
  if (value.is_boolean())
    return std::string(value.get<bool>() ? "true" : "false");
  if (value.is_number()) return value.dump();
  if (value.is_string()) return value.get<std::string>();
  return absl::InvalidArgumentError("must be a number, true/false or a string");
}

// The side to move at the analysed turn.
constexpr int kSideToMove = -1;

}  // namespace

struct AnalysisEngine::GameEntry {
  std::unique_ptr<Game> game;
  // Replaced by clear_cache; tasks keep the one they started with.
  std::shared_ptr<nn::Evaluator> evaluator;
};

struct AnalysisEngine::Task {
  Json id;
  std::string id_text;  // id as a string (ids are strings)
  int turn = 0;
  const Game* game = nullptr;
  std::shared_ptr<nn::Evaluator> evaluator;
  // Shared by the tasks of one query; the first `turn` moves are played.
  std::shared_ptr<const GameState> start;
  std::shared_ptr<const std::vector<Move>> moves;
  uint64_t max_visits = 0;
  bool include_policy = false;
  search::SearchParams params;
  // allowMoves / avoidMoves; side kSideToMove: the turn's side to move.
  std::vector<search::MoveRule> rules;
  double report_every = 0;  // seconds; 0: no reports during the search
  std::atomic<bool> stop{false};
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

absl::Status AnalysisEngine::ClearCache() {
  for (auto& [key, entry] : entries_) {
    absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
        factory_(options_.net, *entry->game);
    if (!evaluator.ok()) {
      return absl::Status(evaluator.status().code(),
                          EvaluatorError(options_.net, evaluator.status()));
    }
    entry->evaluator = *std::move(evaluator);
  }
  return absl::OkStatus();
}

void AnalysisEngine::Terminate(const std::string* id,
                               const std::vector<int>* turns) {
  auto matches = [&](const Task& task) {
    return (id == nullptr || task.id_text == *id) &&
           (turns == nullptr ||
            std::find(turns->begin(), turns->end(), task.turn) != turns->end());
  };
  std::vector<std::unique_ptr<Task>> dropped;
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (matches(*it->second)) {
        dropped.push_back(std::move(it->second));
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    for (Task* task : running_) {
      if (matches(*task)) task->stop = true;
    }
  }
  for (const auto& task : dropped) {
    OrderedJson answer;
    answer["id"] = task->id;
    answer["turnNumber"] = task->turn;
    answer["isDuringSearch"] = false;
    answer["noResults"] = true;
    WriteLine(Dump(answer));
  }
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
  const bool action = query.contains("action");
  // Unknown fields: a warning each (as KataGo), and the query goes on.
  for (const auto& item : query.items()) {
    if (!(action ? KnownActionFields() : KnownFields()).contains(item.key())) {
      OrderedJson warning;
      warning["id"] = id;
      warning["warning"] = "unknown field; ignored";
      warning["field"] = item.key();
      WriteLine(Dump(warning));
    }
  }

  if (action) {
    if (!query["action"].is_string()) {
      return fail("field 'action' must be a string");
    }
    const std::string name = query["action"].get<std::string>();
    std::vector<int> turns;
    const bool some_turns = query.contains("turnNumbers");
    if (some_turns) {
      const Json& list = query["turnNumbers"];
      if (!list.is_array()) {
        return fail("field 'turnNumbers' must be an array of integers");
      }
      for (const Json& turn : list) {
        if (!turn.is_number_integer() || turn.get<int64_t>() < 0 ||
            turn.get<int64_t>() > INT32_MAX) {
          return fail(
              Cat("turnNumbers: ", turn.dump(), " is not a turn number"));
        }
        turns.push_back(turn.get<int>());
      }
    }
    OrderedJson echo = query;
    if (name == "query_version") {
      echo["version"] = options_.version;
    } else if (name == "clear_cache") {
      if (absl::Status status = ClearCache(); !status.ok()) {
        return fail(Cat("clear_cache: ", status.message()));
      }
    } else if (name == "terminate") {
      if (!query.contains("terminateId") || !query["terminateId"].is_string()) {
        return fail("terminate: field 'terminateId' (a string) is required");
      }
      const std::string target = query["terminateId"].get<std::string>();
      Terminate(&target, some_turns ? &turns : nullptr);
    } else if (name == "terminate_all") {
      Terminate(nullptr, some_turns ? &turns : nullptr);
    } else {
      return fail(Cat("field 'action': unknown action '", name,
                      "' (known: query_version, clear_cache, terminate, "
                      "terminate_all)"));
    }
    WriteLine(Dump(echo));
    return;
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
  double report_every = 0;
  if (query.contains("reportDuringSearchEvery")) {
    const Json& every = query["reportDuringSearchEvery"];
    if (!every.is_number() || !(every.get<double>() >= 0.001) ||
        !(every.get<double>() <= 1e6)) {
      return fail(
          "field 'reportDuringSearchEvery' must be a number of seconds from "
          "0.001 to 1e6");
    }
    report_every = every.get<double>();
  }
  int64_t priority = 0;
  if (query.contains("priority")) {
    const Json& p = query["priority"];
    if (!p.is_number_integer() || p.get<int64_t>() < -1000000000 ||
        p.get<int64_t>() > 1000000000) {
      return fail("field 'priority' must be an integer from -1e9 to 1e9");
    }
    priority = p.get<int64_t>();
  }
  search::SearchParams params = options_.params;
  if (query.contains("overrideSettings")) {
    const Json& settings = query["overrideSettings"];
    if (!settings.is_object()) {
      return fail("field 'overrideSettings' must be an object");
    }
    for (const auto& item : settings.items()) {
      absl::StatusOr<std::string> text = SettingText(item.value());
      absl::Status status =
          text.ok() ? search::SetSearchParam(&params, item.key(), *text)
                    : absl::InvalidArgumentError(
                          Cat("'", item.key(), "' ", text.status().message()));
      if (!status.ok()) {
        return fail(Cat("overrideSettings: ", status.message()));
      }
    }
    // The engine's tree cap (--ram-mb) is a limit, not a default.
    const double cap = options_.params.ram_limit_mb;
    if (cap > 0 && (params.ram_limit_mb <= 0 || params.ram_limit_mb > cap)) {
      return fail(
          Cat("overrideSettings: 'ram_limit_mb' may lower the "
              "engine's cap of ",
              cap, " MB (--ram-mb), not lift it"));
    }
  }
  std::vector<search::MoveRule> rules;
  for (const char* field : {"allowMoves", "avoidMoves"}) {
    if (!query.contains(field)) continue;
    const Json& list = query[field];
    if (!list.is_array()) {
      return fail(Cat("field '", field, "' must be an array of objects"));
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string where = Cat(field, "[", i, "]");
      const Json& item = list[i];
      if (!item.is_object()) return fail(Cat(where, " must be an object"));
      search::MoveRule rule;
      rule.allow = std::string_view(field) == "allowMoves";
      rule.side = kSideToMove;
      for (const auto& part : item.items()) {
        const std::string& key = part.key();
        const Json& value = part.value();
        if (key == "moves") {
          if (!value.is_array()) {
            return fail(Cat(where, ".moves must be an array of strings"));
          }
          for (const Json& move : value) {
            if (!move.is_string()) {
              return fail(Cat(where, ".moves must be an array of strings"));
            }
            rule.moves.push_back(move.get<std::string>());
          }
        } else if (key == "untilDepth") {
          if (!value.is_number_integer() || value.get<int64_t>() < 1 ||
              value.get<int64_t>() > 1000) {
            return fail(
                Cat(where, ".untilDepth must be an integer from 1 to 1000"));
          }
          rule.until_depth = value.get<int>();
        } else if (key == "player") {
          const GameInfo& info = game.Info();
          if (value == info.first_player_name) {
            rule.side = 0;
          } else if (value == info.second_player_name) {
            rule.side = 1;
          } else {
            return fail(Cat(where, ".player must be \"", info.first_player_name,
                            "\" or \"", info.second_player_name, "\""));
          }
        } else {
          return fail(Cat(where, ": unknown field '", key,
                          "' (known: moves, untilDepth, player)"));
        }
      }
      if (!item.contains("moves")) {
        return fail(Cat(where, ": field 'moves' is required"));
      }
      rules.push_back(std::move(rule));
    }
  }

  std::vector<std::unique_ptr<Task>> tasks;
  std::shared_ptr<const GameState> shared_start = std::move(start);
  auto shared_moves =
      std::make_shared<const std::vector<Move>>(std::move(moves));
  for (int turn : turns) {
    auto task = std::make_unique<Task>();
    task->id = id;
    task->id_text = id.get<std::string>();
    task->turn = turn;
    task->game = &game;
    task->evaluator = (*entry)->evaluator;
    task->start = shared_start;
    task->moves = shared_moves;
    task->max_visits = max_visits;
    task->include_policy = include_policy;
    task->params = params;
    task->rules = rules;
    task->report_every = report_every;
    tasks.push_back(std::move(task));
  }
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    for (auto& task : tasks) {
      queue_.emplace(std::make_pair(-priority, arrivals_++), std::move(task));
    }
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
      task = std::move(queue_.begin()->second);
      queue_.erase(queue_.begin());
      running_.push_back(task.get());
    }
    RunTask(*task);
    std::lock_guard<std::mutex> lock(queue_mu_);
    running_.erase(std::find(running_.begin(), running_.end(), task.get()));
  }
}

namespace {

// One answer for `task_id`'s turn from a search result.
OrderedJson Answer(const Json& id, int turn, bool during_search,
                   bool include_policy, const search::SearchResult& r,
                   const GameState& root) {
  OrderedJson answer;
  answer["id"] = id;
  answer["turnNumber"] = turn;
  answer["isDuringSearch"] = during_search;
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
    if (m.moves_left >= 0) info["movesLeft"] = Round6(m.moves_left);
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
  if (r.root_moves_left >= 0)
    root_info["movesLeft"] = Round6(r.root_moves_left);
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
  if (include_policy) {
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
  return answer;
}

}  // namespace

void AnalysisEngine::RunTask(Task& task) {
  search::Search search(task.params, task.evaluator.get(),
                        GameProver(*task.game), options_.seed);
  search.SetHeuristic(GameHeuristic(*task.game));
  const std::vector<Move> moves(task.moves->begin(),
                                task.moves->begin() + task.turn);
  if (const absl::Status status = search.SetPosition(*task.start, moves);
      !status.ok()) {
    WriteLine(Dump(OrderedJson{{"id", task.id},
                               {"error", std::string(status.message())}}));
    return;
  }
  const GameState& root = search.root_state();
  std::vector<search::MoveRule> rules = task.rules;
  for (search::MoveRule& rule : rules) {
    if (rule.side == kSideToMove) rule.side = root.SideToMove() & 1;
  }
  search.SetMoveFilter(std::move(rules));
  search::SearchLimits limits;
  limits.visits = task.max_visits;
  search::ProgressCallback progress;
  if (task.report_every > 0) {
    limits.progress_interval_ms = std::max<int64_t>(
        1, static_cast<int64_t>(std::llround(task.report_every * 1000)));
    progress = [this, &task, &root](const search::SearchResult& r) {
      if (r.moves.empty()) return;
      WriteLine(
          Dump(Answer(task.id, task.turn, true, task.include_policy, r, root)));
    };
  }
  const search::SearchResult r = search.Run(limits, progress, &task.stop);
  if (r.moves.empty() && !r.game_result.IsOver()) {
    // Terminated before the root was expanded: nothing to say.
    OrderedJson answer;
    answer["id"] = task.id;
    answer["turnNumber"] = task.turn;
    answer["isDuringSearch"] = false;
    answer["noResults"] = true;
    WriteLine(Dump(answer));
    return;
  }
  WriteLine(
      Dump(Answer(task.id, task.turn, false, task.include_policy, r, root)));
}

}  // namespace volkhv::protocol
