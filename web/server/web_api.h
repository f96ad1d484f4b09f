// The JSON API of the web board (`volkhv serve`), independent of HTTP: a
// request is (method, path, body), the answer a status and a JSON body.
// Stateless for games: every request carries the game, its start position
// and the moves played, and is replayed through the game's own parsers
// (engine/games, the notation readers), as the CLI does. Searches are the
// engine's Search (engine/search); analyses run as jobs on their own
// threads and are polled. The API reads and writes no files.
//
// Routes (docs/web-api.md has every field):
//   GET  /api/info                 games, limits
//   POST /api/state                the position after {moves}: board, legal
//                                  moves, result
//   POST /api/move                 {move} played after {moves}
//   POST /api/engine-move          the engine's move after {moves}
//   POST /api/record               a game file's games, replayed
//   POST /api/export               the game as a game file
//   POST /api/analysis             starts a live analysis -> {id}
//   GET  /api/analysis/ID          its latest report
//   POST /api/analysis/ID/stop     stops it; the final report
//   POST /api/game-analysis        starts a whole-game analysis -> {id}
//   GET  /api/game-analysis/ID     its report so far
//   POST /api/game-analysis/ID/stop
// Errors: {"error": "<what is wrong>"} with 400 (bad input), 404 (unknown
// route or job), 405 (wrong method), 429 (too many searches running), 500,
// 503 (shutting down).
#ifndef VOLKHV_WEB_SERVER_WEB_API_H_
#define VOLKHV_WEB_SERVER_WEB_API_H_

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/search/search_params.h"
#include "nlohmann/json.hpp"
#include "nn/evaluator.h"

namespace volkhv::web {

struct WebLimits {
  size_t max_body_bytes = 1 << 20;   // larger request bodies get 413
  uint64_t max_visits = 1000000;     // per search (and per analysed ply)
  int64_t max_time_ms = 600000;      // per search
  int max_searches = 2;              // analyses and engine moves at once
  int64_t analysis_idle_ms = 30000;  // an unpolled analysis stops
  int max_plies = 2000;              // moves per request
  int max_record_games = 1000;       // games per game file (/api/record)
  uint64_t default_analysis_visits = 200000;  // live analysis without limit
};

struct ApiResponse {
  int status = 200;
  std::string body;  // JSON
};

class WebApi {
 public:
  // `evaluators`(net, game) makes the evaluator of each game variant, on
  // its first use (nn/evaluator.h).
  WebApi(WebLimits limits, std::string net, nn::EvaluatorFactory evaluators,
         search::SearchParams params = search::SearchParams(),
         uint64_t seed = 1);
  // StopAll().
  ~WebApi();
  WebApi(const WebApi&) = delete;
  WebApi& operator=(const WebApi&) = delete;

  // Answers one request. Thread-safe; never throws.
  ApiResponse Handle(std::string_view method, std::string_view path,
                     std::string_view body);
  // Makes the evaluator of `game` (default options) now rather than at its
  // first search; its error if it cannot be made. Thread-safe.
  absl::Status Prepare(const std::string& game);
  // Stops every search (analyses and engine moves in progress) and waits
  // for the analyses' threads; later searches are refused (503). For
  // shutting down. Thread-safe.
  void StopAll();

  const WebLimits& limits() const { return limits_; }

  // {"error": message}.
  static std::string ErrorBody(std::string_view message);

 private:
  struct GameEntry;
  struct Job;
  struct JobSpec;
  struct Request;
  class SearchSlot;

  ApiResponse Route(std::string_view method, std::string_view path,
                    std::string_view body);
  absl::StatusOr<GameEntry*> Entry(const std::string& name,
                                   const GameOptions& options);
  absl::StatusOr<nn::Evaluator*> EvaluatorFor(GameEntry* entry);
  // The body's game replayed; `extra` are the route's fields besides game,
  // gameOptions, position and moves. Errors are the client's.
  absl::StatusOr<Request> ParseRequest(
      std::string_view body, std::initializer_list<std::string_view> extra);

  ApiResponse Info();
  ApiResponse State(std::string_view body);
  ApiResponse PlayMove(std::string_view body);
  ApiResponse EngineMove(std::string_view body);
  ApiResponse Record(std::string_view body);
  ApiResponse Export(std::string_view body);
  ApiResponse StartJob(std::string_view body, bool whole_game);
  ApiResponse JobReport(std::string_view id_text, bool whole_game, bool stop);
  // Stops unpolled jobs and forgets finished ones nobody asked for lately.
  void ReapJobs();
  // A job's thread: a live analysis, or every position of a game.
  void RunAnalysis(Job& job, const JobSpec& spec);
  void RunGameAnalysis(Job& job, const JobSpec& spec);
  // Whether nobody has polled `job` for limits_.analysis_idle_ms.
  bool Idle(Job& job);
  // Makes `report` the job's latest.
  static void Publish(Job& job, const nlohmann::ordered_json& report);

  const WebLimits limits_;
  const std::string net_;
  const nn::EvaluatorFactory evaluators_;
  const search::SearchParams params_;
  const uint64_t seed_;

  std::mutex games_mu_;
  std::map<std::string, std::unique_ptr<GameEntry>> games_;

  std::mutex jobs_mu_;
  std::map<int64_t, std::shared_ptr<Job>> jobs_;
  int64_t next_job_id_ = 1;
  int running_searches_ = 0;  // guarded by jobs_mu_
  std::atomic<bool> stopping_{false};
};

}  // namespace volkhv::web

#endif  // VOLKHV_WEB_SERVER_WEB_API_H_
