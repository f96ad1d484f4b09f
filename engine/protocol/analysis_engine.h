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
// "maxVisits": 400, "includePolicy": true}. Only "id" is required; "game"
// defaults to DefaultGameName() (engine/games/games.h), "gameOptions" to
// none, "position" to the start, "moves" to none,
// "analyzeTurns" to the last turn (moves.size()), "maxVisits" to the
// engine's default. Turn t is the position after the first t moves.
// Unknown fields are errors.
//
// Answer: {"id", "turnNumber", "moveInfos": [{"move", "visits", "wdl": [w,
// d, l], "q", "prior", "pv": [...], "order", "proven"?, "provenPlies"?}],
// "rootInfo": {"visits", "wdl", "q", "currentPlayer", "position",
// "proven"?, "provenPlies"?, "gameOver"?}, "policy"?: [{"move", "prior"}]}.
// moveInfos lists the visited moves (at least the best one), best first;
// values are from the side to move's point of view. An invalid query gets
// {"id": <its id, or null>, "error": "<one line>"}.
#ifndef VOLKHV_ENGINE_PROTOCOL_ANALYSIS_ENGINE_H_
#define VOLKHV_ENGINE_PROTOCOL_ANALYSIS_ENGINE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
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
};

class AnalysisEngine {
 public:
  // Starts the workers. `factory` makes the evaluator of the net option for
  // each game queried (nn/evaluator.h), on the thread that submits the
  // query. `out` must outlive the engine. If a worker thread
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
  // queued (one task per turn). Blank lines are ignored. One thread at a
  // time submits.
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
  std::deque<std::unique_ptr<Task>> queue_;
  bool closed_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace volkhv::protocol

#endif  // VOLKHV_ENGINE_PROTOCOL_ANALYSIS_ENGINE_H_
