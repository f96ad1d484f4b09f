// Releasing a net (`volkhv net bundle`): one generation's net of a loop run
// with its provenance completed from the run directory, or a net trained
// outside a loop (`volkhv train`) with the config and games it was trained
// from, so that the file itself says how it was trained (`volkhv net
// describe`).
#ifndef VOLKHV_TRAINING_NET_RELEASE_H_
#define VOLKHV_TRAINING_NET_RELEASE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "nn/weights_file.h"

namespace volkhv::training {

// Exactly one of run_dir and net_path is set.
struct ReleaseOptions {
  std::string run_dir;  // a `volkhv loop` run directory
  int generation = -1;  // -1: the last finished generation
  // A net trained outside a loop, the config file it was trained with and
  // the self-play games of its training data (>= 0).
  std::string net_path;
  std::string config_path;
  int64_t selfplay_games = -1;
  // Provenance.config; "" names the run's config.textproto or config_path.
  std::string config_name;
  std::string source_commit;  // "" leaves it unset
  double cpu_hours = -1;      // the run's; < 0: not measured, left unset
  std::string note;           // "" keeps the net's own note
};

// The run's net of the generation, its provenance completed: config name and
// text, self-play games and loop hours summed over generations 1..N of
// RUN/generations/, and the options' commit, CPU hours and note. A run
// started from a released net (LoopOptions::start_net) adds that net's
// games, loop hours and CPU hours, as generation 0's provenance has them.
// A net_path keeps its own generation and has no loop hours: its provenance
// gets the config's name and text, the games, commit, CPU hours and note.
// Errors name the file at fault: a generation that is not finished, a
// missing or damaged net, record or config. Reads only; thread-compatible.
absl::StatusOr<nn::NetworkWeights> ReleaseNet(const ReleaseOptions& options);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_NET_RELEASE_H_
