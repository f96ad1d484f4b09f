#include "web/server/web_api.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_replace.h"
#include "engine/game/square.h"
#include "engine/games/games.h"
#include "engine/protocol/json_error.h"
#include "engine/protocol/score.h"
#include "engine/records/game_file_reader.h"
#include "engine/search/search.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"
#include "nlohmann/json.hpp"

namespace volkhv::web {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// A finished job nobody asked for in this long is forgotten.
constexpr int64_t kFinishedJobKeepMs = 120000;
// Live analysis reports come this often.
constexpr int64_t kProgressIntervalMs = 250;
constexpr int kMaxMultiPv = 50;

double Round4(double x) { return std::round(x * 1e4) / 1e4; }

Json WdlJson(const float wdl[3]) {
  return Json::array({Round4(wdl[0]), Round4(wdl[1]), Round4(wdl[2])});
}

std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

ApiResponse Ok(const Json& json) { return ApiResponse{200, Dump(json)}; }

// absl::string_view (status messages) is not std::string_view here.
ApiResponse Error(int status, absl::string_view message) {
  return ApiResponse{
      status, WebApi::ErrorBody(std::string(message.data(), message.size()))};
}

ApiResponse BadRequest(absl::string_view message) {
  return Error(400, message);
}

std::string PlayerName(const GameInfo& info, int side) {
  return side == 0 ? info.first_player_name : info.second_player_name;
}

// The pieces of every square, bottom to top, read from the board field of
// the game's own notation (TFEN or the Tavlei notation). Index rank * width
// + file, rank 0 the first rank. Tokens as the notation writes them.
Json BoardJson(const std::string& position, const GameInfo& info) {
  const int width = info.board_width;
  const int height = info.board_height;
  Json board = Json::array();
  for (int i = 0; i < width * height; ++i) board.push_back(Json::array());
  const std::string field = position.substr(0, position.find(' '));
  int rank = height - 1;
  int file = 0;
  size_t i = 0;
  auto read_token = [&](size_t* at) {
    std::string token(1, field[*at]);
    ++*at;
    if (token == "+" && *at < field.size()) {
      token += field[(*at)++];
    } else if ((token == "P" || token == "p") && *at < field.size() &&
               std::isalpha(static_cast<unsigned char>(field[*at]))) {
      token += field[(*at)++];
      if (*at < field.size() && field[*at] == '~') token += field[(*at)++];
    }
    return token;
  };
  while (i < field.size() && rank >= 0) {
    const char c = field[i];
    if (c == '/') {
      --rank;
      file = 0;
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      int n = 0;
      while (i < field.size() &&
             std::isdigit(static_cast<unsigned char>(field[i]))) {
        n = n * 10 + (field[i] - '0');
        ++i;
      }
      file += n;
    } else {
      Json stack = Json::array();
      if (c == '(') {
        ++i;
        while (i < field.size() && field[i] != ')') {
          stack.push_back(read_token(&i));
        }
        ++i;
      } else {
        stack.push_back(read_token(&i));
      }
      if (file < width) board[rank * width + file] = std::move(stack);
      ++file;
    }
  }
  return board;
}

// The game module's line for how the game ended (TerminationInfo::
// description), with the sides' names put in: "Checkmate: white wins".
std::string TerminationText(const GameState& state, const GameResult& result) {
  const GameInfo& info = state.Info();
  const int side = state.SideToMove();
  const TerminationInfo* termination =
      FindTermination(info.name, result.termination);
  if (termination == nullptr) return "";
  const std::string winner =
      result.outcome == Outcome::kWin    ? PlayerName(info, side)
      : result.outcome == Outcome::kLoss ? PlayerName(info, 1 - side)
                                         : std::string();
  const std::string loser =
      result.outcome == Outcome::kWin    ? PlayerName(info, 1 - side)
      : result.outcome == Outcome::kLoss ? PlayerName(info, side)
                                         : std::string();
  return absl::StrReplaceAll(termination->description,
                             {{"{winner}", winner}, {"{loser}", loser}});
}

Json ResultJson(const GameState& state) {
  const GameResult result = state.Result();
  Json json;
  json["over"] = result.IsOver();
  if (!result.IsOver()) return json;
  const int side = state.SideToMove();
  json["termination"] = TerminationName(state.Info().name, result.termination);
  if (result.outcome == Outcome::kDraw) {
    json["winner"] = nullptr;
  } else {
    json["winner"] = PlayerName(
        state.Info(), result.outcome == Outcome::kWin ? side : 1 - side);
  }
  json["text"] = TerminationText(state, result);
  return json;
}

Json MoveJson(const GameState& state, Move move) {
  const int width = state.Info().board_width;
  return Json{{"move", state.MoveText(move)},
              {"from", SquareName(move.from, width)},
              {"to", SquareName(move.to, width)},
              {"count", move.count}};
}

// Search results as the analysis engine reports them (engine/protocol):
// the top `limit` visited moves with WDL, Q, prior and PV in notation.
Json MoveInfosJson(const GameState& root, const search::SearchResult& r,
                   int limit) {
  Json infos = Json::array();
  for (size_t k = 0; k < r.moves.size(); ++k) {
    if (static_cast<int>(infos.size()) >= limit) break;
    const search::MoveInfo& m = r.moves[k];
    if (k > 0 && m.visits == 0 && m.proven == search::Proven::kNone) continue;
    Json info = MoveJson(root, m.move);
    info["visits"] = m.visits;
    info["wdl"] = WdlJson(m.wdl);
    info["q"] = Round4(m.q);
    info["prior"] = Round4(m.prior);
    info["pv"] = protocol::MoveTexts(root, m.pv);
    if (m.proven != search::Proven::kNone) {
      info["proven"] = protocol::ProvenName(m.proven);
      info["provenPlies"] = m.proven_plies;
    }
    infos.push_back(std::move(info));
  }
  return infos;
}

Json RootInfoJson(const GameState& root, const search::SearchResult& r) {
  Json info;
  info["visits"] = r.root_visits;
  info["wdl"] = WdlJson(r.root_wdl);
  info["q"] = Round4(r.root_q);
  info["sideToMove"] = root.SideToMove();
  if (r.root_proven != search::Proven::kNone) {
    info["proven"] = protocol::ProvenName(r.root_proven);
    info["provenPlies"] = r.root_proven_plies;
  }
  info["elapsedMs"] = static_cast<int64_t>(r.elapsed_seconds * 1000);
  return info;
}

int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t)
      .count();
}

}  // namespace

std::string WebApi::ErrorBody(std::string_view message) {
  return Dump(Json{{"error", std::string(message)}});
}

struct WebApi::GameEntry {
  std::unique_ptr<Game> game;
  std::shared_ptr<nn::Evaluator> evaluator;  // made on first search
  std::mutex evaluator_mu;
};

// A request's game: the parsed JSON object, the game, its start position,
// the moves (legal in turn) and their canonical texts, and the position
// after them.
struct WebApi::Request {
  Json json;
  GameEntry* entry = nullptr;
  std::unique_ptr<GameState> start;
  std::vector<Move> moves;
  std::vector<std::string> texts;
  std::unique_ptr<GameState> state;
};

struct WebApi::Job {
  int64_t id = 0;
  bool whole_game = false;
  bool waited = false;  // its request waits for the end: never idle
  std::atomic<bool> stop{false};

  std::mutex mu;  // guards report
  Json report;
  // Guarded by the API's jobs_mu_.
  bool finished = false;
  Clock::time_point last_poll = Clock::now();
  std::thread thread;
};

// What a job's thread searches.
struct WebApi::JobSpec {
  std::shared_ptr<const GameState> start;
  std::vector<Move> moves;
  nn::Evaluator* evaluator = nullptr;
  const Prover* prover = nullptr;        // the game's (may be null)
  const Heuristic* heuristic = nullptr;  // the game's (may be null)
  uint64_t visits = 0;  // per search (per position for a whole game)
  int64_t time_ms = 0;  // the whole job
  int multipv = 5;      // moves reported (live analysis)
};

// One of the limited search slots, held while an engine move searches.
class WebApi::SearchSlot {
 public:
  explicit SearchSlot(WebApi* api) : api_(api) {
    std::lock_guard<std::mutex> lock(api_->jobs_mu_);
    if (api_->running_searches_ < api_->limits_.max_searches) {
      ++api_->running_searches_;
      held_ = true;
    }
  }
  ~SearchSlot() {
    if (!held_) return;
    std::lock_guard<std::mutex> lock(api_->jobs_mu_);
    --api_->running_searches_;
  }
  bool held() const { return held_; }

 private:
  WebApi* api_;
  bool held_ = false;
};

namespace {

// The fields every game request may carry, plus `extra`.
absl::Status CheckFields(const Json& json,
                         std::initializer_list<std::string_view> extra) {
  static const std::set<std::string, std::less<>> kCommon = {
      "game", "gameOptions", "position", "moves"};
  for (const auto& item : json.items()) {
    if (kCommon.contains(item.key())) continue;
    if (std::find(extra.begin(), extra.end(), item.key()) != extra.end()) {
      continue;
    }
    return absl::InvalidArgumentError(Cat("unknown field '", item.key(), "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Json> ParseBody(std::string_view body) {
  Json json;
  try {
    json = Json::parse(body);
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(
        Cat("invalid JSON: ", protocol::JsonErrorMessage(e)));
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError("the request body must be a JSON object");
  }
  return json;
}

// An optional positive integer field, at most `max`.
absl::StatusOr<int64_t> IntField(const Json& json, const char* name,
                                 int64_t fallback, int64_t min, int64_t max) {
  if (!json.contains(name)) return fallback;
  const Json& value = json[name];
  if (!value.is_number_integer() || value.get<int64_t>() < min ||
      value.get<int64_t>() > max) {
    return absl::InvalidArgumentError(
        Cat("field '", name, "' must be an integer from ", min, " to ", max));
  }
  return value.get<int64_t>();
}

}  // namespace

WebApi::WebApi(WebLimits limits, std::string net,
               nn::EvaluatorFactory evaluators, search::SearchParams params,
               uint64_t seed)
    : limits_(limits),
      net_(std::move(net)),
      evaluators_(std::move(evaluators)),
      params_(params),
      seed_(seed) {}

WebApi::~WebApi() { StopAll(); }

void WebApi::StopAll() {
  stopping_ = true;
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(jobs_mu_);
    for (auto& [id, job] : jobs_) {
      job->stop = true;
      if (job->thread.joinable()) threads.push_back(std::move(job->thread));
    }
  }
  for (std::thread& thread : threads) thread.join();
}

void WebApi::ReapJobs() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(jobs_mu_);
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      Job& job = *it->second;
      const int64_t idle = MsSince(job.last_poll);
      if (!job.finished && !job.waited && idle > limits_.analysis_idle_ms) {
        job.stop = true;
      }
      if (job.finished && idle > kFinishedJobKeepMs) {
        if (job.thread.joinable()) threads.push_back(std::move(job.thread));
        it = jobs_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (std::thread& thread : threads) thread.join();
}

absl::StatusOr<WebApi::GameEntry*> WebApi::Entry(const std::string& name,
                                                 const GameOptions& options) {
  std::string key = name;
  for (const auto& [option, value] : options) {
    Append(&key, " ", option, "=", value);
  }
  std::lock_guard<std::mutex> lock(games_mu_);
  auto it = games_.find(key);
  if (it != games_.end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(name, options);
  if (!game.ok()) return game.status();
  auto entry = std::make_unique<GameEntry>();
  entry->game = *std::move(game);
  GameEntry* raw = entry.get();
  games_.emplace(std::move(key), std::move(entry));
  return raw;
}

absl::Status WebApi::Prepare(const std::string& game) {
  absl::StatusOr<GameEntry*> entry = Entry(game, {});
  if (!entry.ok()) return entry.status();
  return EvaluatorFor(*entry).status();
}

absl::StatusOr<nn::Evaluator*> WebApi::EvaluatorFor(GameEntry* entry) {
  std::lock_guard<std::mutex> lock(entry->evaluator_mu);
  if (!entry->evaluator) {
    if (!evaluators_) {
      return absl::FailedPreconditionError("no evaluator configured");
    }
    absl::StatusOr<std::shared_ptr<nn::Evaluator>> made =
        evaluators_(net_, *entry->game);
    if (!made.ok()) return made.status();
    entry->evaluator = *std::move(made);
  }
  return entry->evaluator.get();
}

ApiResponse WebApi::Handle(std::string_view method, std::string_view path,
                           std::string_view body) {
  try {
    ReapJobs();
    return Route(method, path, body);
  } catch (const std::exception& e) {
    return Error(500, Cat("internal error: ", e.what()));
  } catch (...) {
    return Error(500, "internal error");
  }
}

ApiResponse WebApi::Route(std::string_view method, std::string_view path,
                          std::string_view body) {
  struct Fixed {
    std::string_view path;
    std::string_view method;
    ApiResponse (WebApi::*handler)(std::string_view);
  };
  static constexpr Fixed kFixed[] = {
      {"/api/state", "POST", &WebApi::State},
      {"/api/move", "POST", &WebApi::PlayMove},
      {"/api/engine-move", "POST", &WebApi::EngineMove},
      {"/api/record", "POST", &WebApi::Record},
      {"/api/export", "POST", &WebApi::Export},
  };
  auto wrong_method = [&](std::string_view allowed) {
    return Error(405, Cat("method ", method, " is not allowed on ", path,
                          " (use ", allowed, ")"));
  };
  if (path == "/api/info") {
    if (method != "GET") return wrong_method("GET");
    return Info();
  }
  for (const Fixed& route : kFixed) {
    if (path != route.path) continue;
    if (method != route.method) return wrong_method(route.method);
    return (this->*route.handler)(body);
  }
  for (const bool whole_game : {false, true}) {
    const std::string_view base =
        whole_game ? "/api/game-analysis" : "/api/analysis";
    if (path == base) {
      if (method != "POST") return wrong_method("POST");
      return StartJob(body, whole_game);
    }
    if (path.starts_with(base) && path.size() > base.size() &&
        path[base.size()] == '/') {
      std::string_view rest = path.substr(base.size() + 1);
      bool stop = false;
      if (rest.ends_with("/stop")) {
        rest.remove_suffix(5);
        stop = true;
        if (method != "POST") return wrong_method("POST");
      } else if (method != "GET") {
        return wrong_method("GET");
      }
      return JobReport(rest, whole_game, stop);
    }
  }
  return Error(404, Cat("unknown route ", method, " ", path));
}

ApiResponse WebApi::Info() {
  Json games = Json::array();
  for (std::string_view name : GameNames()) {
    absl::StatusOr<GameEntry*> entry = Entry(std::string(name), {});
    if (!entry.ok()) continue;
    const GameInfo& info = (*entry)->game->Info();
    games.push_back(Json{{"name", info.name},
                         {"width", info.board_width},
                         {"height", info.board_height},
                         {"maxStackHeight", info.max_stack_height},
                         {"players", Json::array({info.first_player_name,
                                                  info.second_player_name})},
                         {"initialPosition",
                          (*entry)->game->NewInitialState()->PositionText()}});
  }
  return Ok(Json{{"games", std::move(games)},
                 {"limits",
                  {{"maxBodyBytes", limits_.max_body_bytes},
                   {"maxVisits", limits_.max_visits},
                   {"maxTimeMs", limits_.max_time_ms},
                   {"maxSearches", limits_.max_searches},
                   {"maxPlies", limits_.max_plies},
                   {"analysisIdleMs", limits_.analysis_idle_ms}}}});
}

namespace {

// The game fields of a request body: game, gameOptions, position, moves.
struct GameFields {
  std::string game = "tavreli";
  GameOptions options;
  std::string position;  // "" = the initial position
  std::vector<std::string> moves;
};

absl::StatusOr<GameFields> ReadGameFields(const Json& json, int max_plies) {
  GameFields fields;
  if (json.contains("game")) {
    if (!json["game"].is_string()) {
      return absl::InvalidArgumentError("field 'game' must be a string");
    }
    fields.game = json["game"].get<std::string>();
  }
  if (json.contains("gameOptions")) {
    const Json& options = json["gameOptions"];
    if (!options.is_object()) {
      return absl::InvalidArgumentError(
          "field 'gameOptions' must be an object");
    }
    for (const auto& item : options.items()) {
      if (!item.value().is_number_integer() ||
          item.value().get<int64_t>() < -1000000 ||
          item.value().get<int64_t>() > 1000000) {
        return absl::InvalidArgumentError(
            Cat("gameOptions: '", item.key(), "' must be an integer"));
      }
      fields.options[item.key()] = item.value().get<int>();
    }
  }
  if (json.contains("position") && !json["position"].is_null()) {
    if (!json["position"].is_string()) {
      return absl::InvalidArgumentError("field 'position' must be a string");
    }
    fields.position = std::string(Trim(json["position"].get<std::string>()));
  }
  if (json.contains("moves")) {
    const Json& list = json["moves"];
    if (!list.is_array()) {
      return absl::InvalidArgumentError(
          "field 'moves' must be an array of strings");
    }
    if (static_cast<int>(list.size()) > max_plies) {
      return absl::InvalidArgumentError(
          Cat("field 'moves': at most ", max_plies, " moves"));
    }
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string()) {
        return absl::InvalidArgumentError(
            Cat("moves[", i, "] must be a string"));
      }
      fields.moves.push_back(list[i].get<std::string>());
    }
  }
  return fields;
}

}  // namespace

// Parses the body and replays its game; `extra` are the route's own fields.
// Every error is the client's (400).
absl::StatusOr<WebApi::Request> WebApi::ParseRequest(
    std::string_view body, std::initializer_list<std::string_view> extra) {
  Request request;
  absl::StatusOr<Json> parsed = ParseBody(body);
  if (!parsed.ok()) return parsed.status();
  if (absl::Status s = CheckFields(*parsed, extra); !s.ok()) return s;
  request.json = *std::move(parsed);
  absl::StatusOr<GameFields> fields =
      ReadGameFields(request.json, limits_.max_plies);
  if (!fields.ok()) return fields.status();
  absl::StatusOr<GameEntry*> entry = Entry(fields->game, fields->options);
  if (!entry.ok()) return absl::InvalidArgumentError(entry.status().message());
  request.entry = *entry;
  const Game& game = *request.entry->game;
  if (fields->position.empty()) {
    request.start = game.NewInitialState();
  } else {
    absl::StatusOr<std::unique_ptr<GameState>> start =
        game.NewStateFromText(fields->position);
    if (!start.ok()) {
      return absl::InvalidArgumentError(
          Cat("position: ", start.status().message()));
    }
    request.start = *std::move(start);
  }
  request.state = request.start->Clone();
  for (size_t i = 0; i < fields->moves.size(); ++i) {
    const std::string& text = fields->moves[i];
    if (request.state->Result().IsOver()) {
      return absl::InvalidArgumentError(
          Cat("moves[", i, "] '", text, "': the game is already over"));
    }
    absl::StatusOr<Move> move = request.state->ParseMove(text);
    if (!move.ok()) {
      return absl::InvalidArgumentError(
          Cat("moves[", i, "] '", text, "': ", move.status().message()));
    }
    request.texts.push_back(request.state->MoveText(*move));
    request.state->Play(*move);
    request.moves.push_back(*move);
  }
  return request;
}

namespace {

// The answer of /api/state, /api/move and /api/engine-move.
Json StateJson(const GameState& start, const std::vector<Move>& moves,
               const std::vector<std::string>& texts, const GameState& state) {
  const GameInfo& info = state.Info();
  Json json;
  json["game"] = info.name;
  json["start"] = start.PositionText();
  json["moves"] = texts;
  json["ply"] = moves.size();
  json["position"] = state.PositionText();
  json["sideToMove"] = state.SideToMove();
  json["player"] = PlayerName(info, state.SideToMove());
  json["inCheck"] = state.InCheck();
  json["board"] = BoardJson(state.PositionText(), info);
  if (moves.empty()) {
    json["lastMove"] = nullptr;
  } else {
    const Move last = moves.back();
    json["lastMove"] = Json{{"move", texts.back()},
                            {"from", SquareName(last.from, info.board_width)},
                            {"to", SquareName(last.to, info.board_width)},
                            {"count", last.count}};
  }
  json["result"] = ResultJson(state);
  Json legal = Json::array();
  if (!state.Result().IsOver()) {
    MoveList list;
    state.LegalMoves(&list);
    for (Move m : list) legal.push_back(MoveJson(state, m));
  }
  json["legalMoves"] = std::move(legal);
  return json;
}

}  // namespace

ApiResponse WebApi::State(std::string_view body) {
  absl::StatusOr<Request> parsed_request = ParseRequest(body, {});
  if (!parsed_request.ok())
    return BadRequest(parsed_request.status().message());
  Request& request = *parsed_request;
  return Ok(
      StateJson(*request.start, request.moves, request.texts, *request.state));
}

ApiResponse WebApi::PlayMove(std::string_view body) {
  absl::StatusOr<Request> parsed_request = ParseRequest(body, {"move"});
  if (!parsed_request.ok())
    return BadRequest(parsed_request.status().message());
  Request& request = *parsed_request;
  if (!request.json.contains("move") || !request.json["move"].is_string()) {
    return BadRequest("field 'move' (a string) is required");
  }
  const std::string text = request.json["move"].get<std::string>();
  if (request.state->Result().IsOver()) {
    return BadRequest(Cat("move '", text, "': the game is already over"));
  }
  absl::StatusOr<Move> move = request.state->ParseMove(text);
  if (!move.ok()) {
    return BadRequest(Cat("move '", text, "': ", move.status().message()));
  }
  request.texts.push_back(request.state->MoveText(*move));
  request.state->Play(*move);
  request.moves.push_back(*move);
  return Ok(
      StateJson(*request.start, request.moves, request.texts, *request.state));
}

ApiResponse WebApi::EngineMove(std::string_view body) {
  absl::StatusOr<Request> parsed_request =
      ParseRequest(body, {"visits", "timeMs"});
  if (!parsed_request.ok())
    return BadRequest(parsed_request.status().message());
  Request& request = *parsed_request;
  absl::StatusOr<int64_t> visits =
      IntField(request.json, "visits", 0, 1, limits_.max_visits);
  if (!visits.ok()) return BadRequest(visits.status().message());
  absl::StatusOr<int64_t> time_ms =
      IntField(request.json, "timeMs", 0, 1, limits_.max_time_ms);
  if (!time_ms.ok()) return BadRequest(time_ms.status().message());
  if (*visits == 0 && *time_ms == 0) {
    *visits = std::min<int64_t>(800, limits_.max_visits);
  }
  if (request.state->Result().IsOver()) {
    return BadRequest("the game is already over");
  }
  absl::StatusOr<nn::Evaluator*> evaluator = EvaluatorFor(request.entry);
  if (!evaluator.ok()) return Error(500, evaluator.status().message());
  if (stopping_) return Error(503, "the server is stopping");
  SearchSlot slot(this);
  if (!slot.held()) {
    return Error(429, Cat("too many searches running (at most ",
                          limits_.max_searches, "); stop an analysis first"));
  }
  search::Search search(params_, *evaluator, GameProver(*request.entry->game),
                        seed_);
  search.SetHeuristic(GameHeuristic(*request.entry->game));
  if (absl::Status s = search.SetPosition(*request.start, request.moves);
      !s.ok()) {
    return BadRequest(s.message());
  }
  search::SearchLimits search_limits;
  search_limits.visits = static_cast<uint64_t>(*visits);
  search_limits.time_ms = *time_ms;
  if (*time_ms == 0) search_limits.time_ms = limits_.max_time_ms;
  const search::SearchResult r = search.Run(search_limits, {}, &stopping_);
  if (stopping_) return Error(503, "the server is stopping");
  if (r.best_move.IsNull() || r.moves.empty()) {
    return Error(500, "the search found no move");
  }
  const GameState& root = search.root_state();
  Json engine = MoveJson(root, r.best_move);
  engine["root"] = RootInfoJson(root, r);
  engine["moveInfos"] = MoveInfosJson(root, r, 5);
  request.texts.push_back(root.MoveText(r.best_move));
  request.state->Play(r.best_move);
  request.moves.push_back(r.best_move);
  Json json =
      StateJson(*request.start, request.moves, request.texts, *request.state);
  json["engine"] = std::move(engine);
  return Ok(json);
}

ApiResponse WebApi::Record(std::string_view body) {
  absl::StatusOr<Json> parsed = ParseBody(body);
  if (!parsed.ok()) return BadRequest(parsed.status().message());
  const Json& json = *parsed;
  for (const auto& item : json.items()) {
    if (item.key() != "game" && item.key() != "gameOptions" &&
        item.key() != "text") {
      return BadRequest(Cat("unknown field '", item.key(), "'"));
    }
  }
  absl::StatusOr<GameFields> fields = ReadGameFields(json, limits_.max_plies);
  if (!fields.ok()) return BadRequest(fields.status().message());
  if (!json.contains("text") || !json["text"].is_string()) {
    return BadRequest("field 'text' (the game file's text) is required");
  }
  absl::StatusOr<GameEntry*> entry = Entry(fields->game, fields->options);
  if (!entry.ok()) return BadRequest(entry.status().message());
  const Game& game = *(*entry)->game;
  absl::StatusOr<std::vector<RecordedGame>> records =
      ParseGameFileText(json["text"].get<std::string>());
  if (!records.ok()) return BadRequest(records.status().message());
  if (records->empty()) return BadRequest("the game file holds no game");
  if (static_cast<int>(records->size()) > limits_.max_record_games) {
    return BadRequest(Cat("the game file holds ", records->size(),
                          " games; at most ", limits_.max_record_games));
  }
  Json games = Json::array();
  for (size_t g = 0; g < records->size(); ++g) {
    const RecordedGame& record = (*records)[g];
    Json out;
    out["name"] = record.Tag("Game");
    Json tags = Json::object();
    for (const auto& [key, value] : record.tags) tags[key] = value;
    out["tags"] = std::move(tags);
    out["line"] = record.first_line;
    std::string text = record.Tag("TFEN");
    if (text.empty()) text = record.Tag("Position");
    std::unique_ptr<GameState> start;
    if (text.empty()) {
      start = game.NewInitialState();
    } else {
      absl::StatusOr<std::unique_ptr<GameState>> state =
          game.NewStateFromText(text);
      if (!state.ok()) {
        out["position"] = text;
        out["moves"] = Json::array();
        out["error"] = Cat("start position: ", state.status().message());
        games.push_back(std::move(out));
        continue;
      }
      start = *std::move(state);
    }
    out["position"] = start->PositionText();
    std::unique_ptr<GameState> state = start->Clone();
    Json moves = Json::array();
    std::string error;
    for (size_t i = 0; i < record.moves.size(); ++i) {
      if (static_cast<int>(i) >= limits_.max_plies) {
        error = Cat("more than ", limits_.max_plies, " plies");
        break;
      }
      absl::StatusOr<Move> move =
          state->Result().IsOver()
              ? absl::InvalidArgumentError("the game is already over")
              : state->ParseMove(record.moves[i]);
      if (!move.ok()) {
        error = Cat("ply ", i + 1, " (", record.moves[i],
                    "): ", move.status().message());
        break;
      }
      moves.push_back(state->MoveText(*move));
      state->Play(*move);
    }
    out["moves"] = std::move(moves);
    if (!error.empty()) out["error"] = error;
    games.push_back(std::move(out));
  }
  return Ok(Json{{"games", std::move(games)}});
}

ApiResponse WebApi::Export(std::string_view body) {
  absl::StatusOr<Request> parsed_request = ParseRequest(body, {"tags"});
  if (!parsed_request.ok())
    return BadRequest(parsed_request.status().message());
  Request& request = *parsed_request;
  std::vector<std::pair<std::string, std::string>> tags;
  if (request.json.contains("tags")) {
    const Json& given = request.json["tags"];
    if (!given.is_object()) {
      return BadRequest("field 'tags' must be an object of strings");
    }
    for (const auto& item : given.items()) {
      if (!item.value().is_string()) {
        return BadRequest(Cat("tags: '", item.key(), "' must be a string"));
      }
      const std::string& key = item.key();
      const std::string value = item.value().get<std::string>();
      const bool bad_key =
          key.empty() || !std::all_of(key.begin(), key.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
          });
      if (bad_key) {
        return BadRequest(Cat("tags: '", key, "' is not a tag name"));
      }
      if (value.find_first_of("\"\n\r") != std::string::npos) {
        return BadRequest(
            Cat("tags: '", key, "' may not hold quotes or line breaks"));
      }
      if (key == "TFEN" || key == "Position" || key == "Plies") {
        return BadRequest(Cat("tags: '", key, "' is written by the server"));
      }
      tags.emplace_back(key, value);
    }
  }
  const GameState& start = *request.start;
  const GameState& end = *request.state;
  const std::string initial =
      request.entry->game->NewInitialState()->PositionText();
  std::string text;
  for (const auto& [key, value] : tags) {
    Append(&text, "[", key, " \"", value, "\"]\n");
  }
  if (start.PositionText() != initial) {
    Append(&text, "[", start.Info().name == "tavreli" ? "TFEN" : "Position",
           " \"", start.PositionText(), "\"]\n");
  }
  Append(&text, "[Plies \"", request.moves.size(), "\"]\n");
  const GameResult result = end.Result();
  std::string result_text = "*";
  if (result.outcome == Outcome::kDraw) {
    result_text = "1/2-1/2";
  } else if (result.IsOver()) {
    const int winner = result.outcome == Outcome::kWin ? end.SideToMove()
                                                       : 1 - end.SideToMove();
    result_text = winner == 0 ? "1-0" : "0-1";
  }
  std::string line;
  const int first_side = start.SideToMove();
  for (size_t i = 0; i < request.texts.size(); ++i) {
    const int side = (first_side + static_cast<int>(i)) % 2;
    const int number = static_cast<int>((i + first_side) / 2) + 1;
    std::string token;
    if (side == 0) {
      token = Cat(number, ". ", request.texts[i]);
    } else if (i == 0) {
      token = Cat(number, "... ", request.texts[i]);
    } else {
      token = request.texts[i];
    }
    if (!line.empty() && line.size() + token.size() + 1 > 78) {
      Append(&text, line, "\n");
      line.clear();
    }
    Append(&line, line.empty() ? "" : " ", token);
  }
  if (!line.empty() && line.size() + result_text.size() + 1 > 78) {
    Append(&text, line, "\n");
    line.clear();
  }
  Append(&line, line.empty() ? "" : " ", result_text);
  Append(&text, line, "\n");
  return Ok(Json{{"text", text}, {"result", result_text}});
}

ApiResponse WebApi::StartJob(std::string_view body, bool whole_game) {
  absl::StatusOr<Request> parsed_request = ParseRequest(
      body, {"maxVisits", "maxTimeMs", "multiPv", "visitsPerPly", "wait"});
  if (!parsed_request.ok())
    return BadRequest(parsed_request.status().message());
  Request& request = *parsed_request;
  const int64_t default_visits = static_cast<int64_t>(
      std::min(limits_.default_analysis_visits, limits_.max_visits));
  absl::StatusOr<int64_t> visits = IntField(
      request.json, whole_game ? "visitsPerPly" : "maxVisits",
      whole_game ? std::min<int64_t>(200, default_visits) : default_visits, 1,
      static_cast<int64_t>(limits_.max_visits));
  if (!visits.ok()) return BadRequest(visits.status().message());
  if (whole_game && request.json.contains("maxVisits")) {
    return BadRequest(
        "field 'maxVisits' is for /api/analysis; use "
        "'visitsPerPly'");
  }
  if (!whole_game && request.json.contains("visitsPerPly")) {
    return BadRequest(
        "field 'visitsPerPly' is for /api/game-analysis; use "
        "'maxVisits'");
  }
  absl::StatusOr<int64_t> time_ms = IntField(
      request.json, "maxTimeMs", limits_.max_time_ms, 1, limits_.max_time_ms);
  if (!time_ms.ok()) return BadRequest(time_ms.status().message());
  absl::StatusOr<int64_t> multipv =
      IntField(request.json, "multiPv", 5, 1, kMaxMultiPv);
  bool wait = false;
  if (request.json.contains("wait")) {
    if (!request.json["wait"].is_boolean()) {
      return BadRequest("field 'wait' must be true or false");
    }
    wait = request.json["wait"].get<bool>();
  }
  if (!multipv.ok()) return BadRequest(multipv.status().message());
  absl::StatusOr<nn::Evaluator*> evaluator = EvaluatorFor(request.entry);
  if (!evaluator.ok()) return Error(500, evaluator.status().message());

  if (stopping_) return Error(503, "the server is stopping");
  auto job = std::make_shared<Job>();
  job->whole_game = whole_game;
  job->waited = wait;
  // The job's thread owns its copies of everything it needs.
  JobSpec spec;
  spec.start = std::move(request.start);
  spec.moves = std::move(request.moves);
  spec.evaluator = *evaluator;
  spec.prover = GameProver(*request.entry->game);
  spec.heuristic = GameHeuristic(*request.entry->game);
  spec.visits = static_cast<uint64_t>(*visits);
  spec.time_ms = *time_ms;
  spec.multipv = static_cast<int>(*multipv);
  {
    // One critical section: StopAll and the reaper see the job with its
    // thread.
    std::lock_guard<std::mutex> lock(jobs_mu_);
    if (running_searches_ >= limits_.max_searches) {
      return Error(429, Cat("too many searches running (at most ",
                            limits_.max_searches, "); stop an analysis first"));
    }
    ++running_searches_;
    job->id = next_job_id_++;
    job->report = Json{{"id", job->id}, {"running", true}};
    if (whole_game) {
      // The shape of every later report, before its first ply is done.
      job->report["plies"] = Json::array();
      job->report["total"] = spec.moves.size() + 1;
    }
    jobs_[job->id] = job;
    job->thread = std::thread([this, job, spec = std::move(spec)]() {
      if (job->whole_game) {
        RunGameAnalysis(*job, spec);
      } else {
        RunAnalysis(*job, spec);
      }
      std::lock_guard<std::mutex> lock(jobs_mu_);
      --running_searches_;
      job->finished = true;
    });
  }
  if (!wait) return Ok(Json{{"id", job->id}});
  // The whole search in this request: the final report is the answer.
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(jobs_mu_);
    if (job->thread.joinable()) thread = std::move(job->thread);
  }
  if (thread.joinable()) thread.join();
  std::lock_guard<std::mutex> lock(job->mu);
  return Ok(job->report);
}

bool WebApi::Idle(Job& job) {
  if (job.waited) return false;
  std::lock_guard<std::mutex> lock(jobs_mu_);
  return MsSince(job.last_poll) > limits_.analysis_idle_ms;
}

void WebApi::Publish(Job& job, const Json& report) {
  std::lock_guard<std::mutex> lock(job.mu);
  job.report = report;
}

void WebApi::RunAnalysis(Job& job, const JobSpec& spec) {
  search::Search search(params_, spec.evaluator, spec.prover, seed_);
  search.SetHeuristic(spec.heuristic);
  Json report{{"id", job.id}, {"running", true}};
  if (absl::Status s = search.SetPosition(*spec.start, spec.moves); !s.ok()) {
    report["running"] = false;
    report["error"] = std::string(s.message());
    Publish(job, report);
    return;
  }
  const GameState& root = search.root_state();
  report["position"] = root.PositionText();
  auto publish = [&](const search::SearchResult& r, bool running) {
    report["running"] = running;
    report["rootInfo"] = RootInfoJson(root, r);
    report["moveInfos"] = MoveInfosJson(root, r, spec.multipv);
    if (!running) {
      report["stopReason"] = std::string(search::StopReasonName(r.stop_reason));
    }
    Publish(job, report);
  };
  search::SearchLimits limits;
  limits.visits = spec.visits;
  limits.time_ms = spec.time_ms;
  limits.progress_interval_ms = kProgressIntervalMs;
  const search::SearchResult r = search.Run(
      limits,
      [&](const search::SearchResult& progress) {
        publish(progress, true);
        if (Idle(job)) job.stop = true;
      },
      &job.stop);
  publish(r, false);
}

void WebApi::RunGameAnalysis(Job& job, const JobSpec& spec) {
  search::Search search(params_, spec.evaluator, spec.prover, seed_);
  search.SetHeuristic(spec.heuristic);
  const std::vector<Move>& moves = spec.moves;
  Json report{{"id", job.id}, {"running", true}};
  report["plies"] = Json::array();
  report["total"] = moves.size() + 1;
  const auto deadline = Clock::now() + std::chrono::milliseconds(spec.time_ms);
  for (size_t ply = 0; ply <= moves.size(); ++ply) {
    if (job.stop || Clock::now() >= deadline || Idle(job)) {
      report["stopReason"] = job.stop ? "stopped" : "time";
      break;
    }
    const std::span<const Move> prefix(moves.data(), ply);
    if (absl::Status s = search.SetPosition(*spec.start, prefix); !s.ok()) {
      report["error"] = std::string(s.message());
      break;
    }
    const GameState& root = search.root_state();
    const int side = root.SideToMove();
    Json entry;
    entry["ply"] = ply;
    entry["sideToMove"] = side;
    if (ply < moves.size()) entry["played"] = root.MoveText(moves[ply]);
    // Values from the first player's point of view (q in [-1, 1]).
    const GameResult result = root.Result();
    if (result.IsOver()) {
      const double q = result.outcome == Outcome::kWin    ? 1.0
                       : result.outcome == Outcome::kLoss ? -1.0
                                                          : 0.0;
      entry["q"] = side == 0 ? q : -q;
      entry["gameOver"] = TerminationName(root.Info().name, result.termination);
    } else {
      search::SearchLimits limits;
      limits.visits = spec.visits;
      limits.time_ms = std::max<int64_t>(
          1, std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                   Clock::now())
                 .count());
      const search::SearchResult r = search.Run(limits, {}, &job.stop);
      float wdl[3] = {r.root_wdl[0], r.root_wdl[1], r.root_wdl[2]};
      if (side == 1) std::swap(wdl[0], wdl[2]);
      entry["visits"] = r.root_visits;
      entry["q"] = Round4(side == 0 ? r.root_q : -r.root_q);
      entry["wdl"] = WdlJson(wdl);
      if (!r.moves.empty()) {
        entry["best"] = root.MoveText(r.moves[0].move);
        entry["bestPv"] = protocol::MoveTexts(root, r.moves[0].pv);
      }
      entry["candidates"] = r.moves.size();
      for (size_t k = 0; ply < moves.size() && k < r.moves.size(); ++k) {
        if (r.moves[k].move != moves[ply]) continue;
        entry["playedRank"] = k + 1;
        entry["playedVisits"] = r.moves[k].visits;
      }
    }
    // The previous ply's drop: how much its mover's expected score
    // ((q + 1) / 2) fell from before the move to after it.
    Json& plies = report["plies"];
    if (!plies.empty()) {
      Json& previous = plies.back();
      const int mover = previous["sideToMove"].get<int>();
      const double before = previous["q"].get<double>();
      const double after = entry["q"].get<double>();
      const double drop =
          mover == 0 ? (before - after) / 2 : (after - before) / 2;
      previous["drop"] = Round4(std::max(0.0, drop));
    }
    plies.push_back(std::move(entry));
    Publish(job, report);
  }
  report["running"] = false;
  Publish(job, report);
}

ApiResponse WebApi::JobReport(std::string_view id_text, bool whole_game,
                              bool stop) {
  const std::optional<int64_t> id = ToInt<int64_t>(id_text);
  if (!id) {
    return Error(404, Cat("no analysis '", id_text, "'"));
  }
  std::shared_ptr<Job> job;
  {
    std::lock_guard<std::mutex> lock(jobs_mu_);
    auto it = jobs_.find(*id);
    if (it == jobs_.end() || it->second->whole_game != whole_game) {
      return Error(404, Cat("no ", whole_game ? "game analysis " : "analysis ",
                            *id, " (finished ones are kept ",
                            kFinishedJobKeepMs / 1000, " s)"));
    }
    job = it->second;
    job->last_poll = Clock::now();
  }
  if (stop) {
    job->stop = true;
    std::thread thread;
    {
      std::lock_guard<std::mutex> lock(jobs_mu_);
      if (job->thread.joinable()) thread = std::move(job->thread);
    }
    if (thread.joinable()) thread.join();
  }
  std::lock_guard<std::mutex> lock(job->mu);
  return Ok(job->report);
}

}  // namespace volkhv::web
