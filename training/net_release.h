// Releasing a net from a loop run (`volkhv net bundle`): one generation's net
// with its provenance completed from the run directory, so that the file
// itself says how it was trained (`volkhv net describe`).
#ifndef VOLKHV_TRAINING_NET_RELEASE_H_
#define VOLKHV_TRAINING_NET_RELEASE_H_

#include <string>

#include "absl/status/statusor.h"
#include "nn/weights_file.h"

namespace volkhv::training {

struct ReleaseOptions {
  std::string run_dir;  // a `volkhv loop` run directory
  int generation = -1;  // -1: the last finished generation
  // Provenance.config; "" names the run's config.textproto.
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
// Errors name the run file at fault: a generation that is not finished, a
// missing or damaged net or record. Reads only; thread-compatible.
absl::StatusOr<nn::NetworkWeights> ReleaseNet(const ReleaseOptions& options);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_NET_RELEASE_H_
