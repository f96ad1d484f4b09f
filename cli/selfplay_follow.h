// `volkhv selfplay --follow RUN`: a self-play worker of a generation loop
// run with external_selfplay (training/external_selfplay.h; the shared
// files: selfplay/worker_dir.h).
#ifndef VOLKHV_CLI_SELFPLAY_FOLLOW_H_
#define VOLKHV_CLI_SELFPLAY_FOLLOW_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "proto/loop_config.pb.h"

namespace volkhv::cli {

struct FollowOptions {
  std::string run_dir;
  // How this worker runs the nets (its --net is not used: the loop names
  // the net).
  proto::EvaluatorConfig evaluator;
  int max_games = 0;             // games this worker plays; 0: no limit
  std::optional<int> parallel;   // over the run's selfplay.parallel_games
  std::optional<uint64_t> seed;  // unset: fresh seeds every round
  double poll_seconds = 0.5;     // how often nets/latest.textproto is read
};

// Plays rounds of at most parallel_games games, each with the net the loop
// has published last (a new net is picked up between rounds), for the
// generation the loop waits for, into RUN/incoming/, as long as that
// generation lacks games; then waits for the next net. Ends when the loop
// has finished the run, after max_games, or when *stop is set (finished
// games are written). Returns the process exit code; progress goes to
// stderr.
int FollowRun(const FollowOptions& options, const std::atomic<bool>* stop);

}  // namespace volkhv::cli

#endif  // VOLKHV_CLI_SELFPLAY_FOLLOW_H_
