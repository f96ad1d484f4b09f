// Self-play delegated to worker processes, the loop's side
// (LoopConfig.external_selfplay, proto/workers.proto; the files are
// described in selfplay/worker_dir.h; the workers are `volkhv selfplay
// --follow RUN`, cli/selfplay_follow.cc).
#ifndef VOLKHV_TRAINING_EXTERNAL_SELFPLAY_H_
#define VOLKHV_TRAINING_EXTERNAL_SELFPLAY_H_

#include <atomic>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/workers.pb.h"

namespace volkhv::training {

struct WorkerGamesRequest {
  std::string run_dir;
  int generation = 0;
  std::string net_file;  // a file name in RUN/nets/
  int games = 0;         // the generation's games in all
  proto::ExternalSelfplayConfig config;
  std::function<void(const std::string&)> log;  // progress lines
  const std::atomic<bool>* stop = nullptr;
};

// Publishes the assignment (nets/latest.textproto), then takes the workers'
// files of the generation from incoming/ into games/ (in name order) until
// games/ holds exactly `games` of its games: a file that would pass the
// count is taken in part (its first games, written atomically under the
// same name) and the whole file goes to incoming/surplus/, as do files of
// earlier generations. A file that cannot be read is skipped and looked at
// again at the next poll (one warning per file). A file already in games/
// (a loop killed while taking it) is not taken twice. Logs a progress line
// with the games taken from each worker host. Returns the seconds waited;
// returns early when *stop is set. DeadlineExceeded when no game has
// arrived for config.timeout_seconds. One caller per run directory.
absl::StatusOr<double> CollectWorkerGames(const WorkerGamesRequest& request);

// Tells the workers that the run has trained all its generations.
absl::Status PublishRunFinished(const std::string& run_dir, int generation);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_EXTERNAL_SELFPLAY_H_
