// The JSON analysis engine of `volkhv analysis` (KataGo-style): one query
// object per input line, one answer object per analysed turn per output
// line. Queries are checked on the reading thread (errors are answered at
// once) and searched by a pool of worker threads, each running its own
// Search; all searches of one game share one evaluator, so concurrent
// queries fill its batches. Answers may come out of order; every line is
// written whole.
//
// Query: {"id": "q1", "game": "<name>", "gameOptions": {"<option>": 3},
// "position": "<text>", "moves": ["e2-e4", ...], "analyzeTurns": [0, 2],
// "maxVisits": 400, "includePolicy": true, "reportDuringSearchEvery": 0.5,
// "overrideSettings": {"cpuct_init": 2.0}, "allowMoves": [{"moves":
// ["e2-e4", "d2-d4"], "untilDepth": 1, "player": "white"}], "avoidMoves":
// [...], "priority": 5}. Only "id" is required; "game" defaults to
// DefaultGameName() (engine/games/games.h), "gameOptions" to none,
// "position" to the start, "moves" to none, "analyzeTurns" to the last turn
// (moves.size()), "maxVisits" to the engine's default, "priority" to 0.
// Turn t is the position after the first t moves.
//   reportDuringSearchEvery (seconds, 0.001 to 1e6): answers with
//     "isDuringSearch": true while the turn is searched, at that interval;
//     the final answer has false.
//   overrideSettings: search parameters (engine/search/search_params.h, by
//     name) for this query; an unknown name or a bad value is an error
//     naming it, and ram_limit_mb may lower the engine's cap, not lift it.
//   allowMoves / avoidMoves: lists of {"moves": [...], "untilDepth": N
//     (default 1), "player": name (default: the side to move of the
//     analysed turn)}: at that player's turns fewer than N plies into the
//     search only the moves listed (allow) or all but them (avoid) are
//     searched (search::MoveRule; the moves are read in each position, so
//     a text that is no legal move there matches none).
//   priority: queued turns of higher priority start first; ties in order
//     of arrival.
// Unknown fields are answered with {"id", "warning", "field"} and the query
// runs without them.
//
// Answer: {"id", "turnNumber", "isDuringSearch", "moveInfos": [{"move",
// "visits", "wdl": [w, d, l], "q", "prior", "pv": [...], "order", "proven"?,
// "provenPlies"?}], "rootInfo": {"visits", "wdl", "q", "currentPlayer",
// "position", "proven"?, "provenPlies"?, "gameOver"?}, "policy"?: [{"move",
// "prior"}]}. moveInfos lists the visited moves (at least the best one),
// best first; values are from the side to move's point of view. A turn
// terminated before its search expanded the root is {"id", "turnNumber",
// "isDuringSearch": false, "noResults": true}. An invalid query gets {"id":
// <its id, or null>, "error": "<one line>"}.
//
// Actions: {"id", "action": "query_version"} is echoed with "version";
// "clear_cache" makes every game's evaluator afresh (an empty NN cache;
// running searches finish with the old one) and is echoed; "terminate"
// with "terminateId" (and optionally "turnNumbers") ends that query's
// turns: queued ones are answered with noResults, running ones stop and
// answer what they have; "terminate_all" (optionally "turnNumbers") does
// so for every query. Both are echoed once done on the reading side.
#ifndef VOLKHV_ENGINE_PROTOCOL_ANALYSIS_ENGINE_H_
#define VOLKHV_ENGINE_PROTOCOL_ANALYSIS_ENGINE_H_

#include <condition_variable>
#include <cstdint>
#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "engine/game/game.h"
#include "engine/protocol/uci_engine.h"
#include "engine/search/search_params.h"
#include "nn/evaluator.h"

namespace volkhv::protocol {

struct AnalysisEngineOptions {
  int threads = 2;  // worker threads = searches running at once
  std::string net = "random";
  search::SearchParams params;
  uint64_t default_max_visits = 500;
  uint64_t max_visits_cap = 100000000;  // larger maxVisits are errors
  uint64_t seed = 1;
  // Longer query lines are answered with an error and skipped.
  size_t max_line_bytes = 1 << 20;
  // Queries whose arrays and objects nest deeper are answered with an error
  // before they are parsed.
  int max_json_depth = 64;
  // What query_version answers.
  std::string version = "unknown";
};

class AnalysisEngine {
 public:
  // Starts the workers. `factory` makes the evaluator of the net option for
  // each game queried (nn/evaluator.h), on the thread that submits the
  // query; clear_cache calls it again, so it empties the caches only with
  // a factory that makes fresh evaluators (nn::MakeEvaluatorFactory's, not
  // a caching one). `out` must outlive the engine. If a worker thread
  // cannot be started, status() says so and the engine serves with those
  // that did start (none: every query is answered with that error).
  AnalysisEngine(AnalysisEngineOptions options, nn::EvaluatorFactory factory,
                 std::ostream* out);
  // OK, or why not every worker thread could be started.
  const absl::Status& status() const { return status_; }
  // Finish().
  ~AnalysisEngine();
  AnalysisEngine(const AnalysisEngine&) = delete;
  AnalysisEngine& operator=(const AnalysisEngine&) = delete;

  // Submits every line of `in`, then Finish(). Returns 0.
  int Run(std::istream& in);
  // Checks one query line: an error is answered at once, a valid query is
  // queued (one task per turn), an action is carried out. Blank lines are
  // ignored. One thread at a time submits.
  void Submit(std::string_view line);
  // Waits until every queued task is answered and stops the workers.
  // Idempotent; nothing may be submitted afterwards.
  void Finish();

 private:
  struct GameEntry;
  struct Task;

  void WriteLine(const std::string& line);
  void Worker();
  void RunTask(Task& task);
  // The game and evaluator for a game name and options, made on first use.
  // Errors are the factory's or MakeGame's.
  absl::StatusOr<GameEntry*> Entry(const std::string& game,
                                   const GameOptions& game_options);
  // Ends the turns of the query `id` (of every query when null) that are
  // in `turns` (every turn when null): queued ones are answered with
  // noResults, running ones are told to stop.
  void Terminate(const std::string* id, const std::vector<int>* turns);
  // Makes every game's evaluator afresh (empty caches).
  absl::Status ClearCache();

  const AnalysisEngineOptions options_;
  absl::Status status_;
  const nn::EvaluatorFactory factory_;
  std::ostream* const out_;
  std::mutex out_mu_;

  // Touched only by the submitting thread until Finish (workers use the
  // pointers they were given, which stay valid until the engine dies).
  std::map<std::string, std::unique_ptr<GameEntry>> entries_;

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  // Queued tasks by (-priority, arrival): the first starts next.
  std::map<std::pair<int64_t, uint64_t>, std::unique_ptr<Task>> queue_;
  uint64_t arrivals_ = 0;
  std::vector<Task*> running_;  // tasks a worker is searching
  bool closed_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace volkhv::protocol

#endif  // VOLKHV_ENGINE_PROTOCOL_ANALYSIS_ENGINE_H_
