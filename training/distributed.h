// Training across processes: the settings of `volkhv train --world-size N
// --rank R --master ADDR:PORT` and their checks. This header does not
// include LibTorch; the process group is training/process_group.h, and how
// the trainer uses it is in training/trainer.h.
//
// Thread-safety: free functions on values, safe from any thread.
#ifndef VOLKHV_TRAINING_DISTRIBUTED_H_
#define VOLKHV_TRAINING_DISTRIBUTED_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace volkhv::training {

inline constexpr int kMaxWorldSize = 64;
inline constexpr int kDefaultDistTimeoutSeconds = 300;

struct DistributedOptions {
  int world_size = 1;       // processes in all, 1..kMaxWorldSize; 1 = alone
  int rank = 0;             // this process, in [0, world_size)
  std::string master_host;  // where rank 0 listens (a name or an address)
  int master_port = 0;      // its TCP port, 1..65535
  // How long the rendezvous, and then any one collective, may wait for the
  // other processes before the training fails.
  int timeout_seconds = kDefaultDistTimeoutSeconds;
  std::string backend = "gloo";  // "gloo" (CPU) or "nccl"

  bool enabled() const { return world_size > 1; }
};

// The flags' texts as given ("" = not given).
struct DistributedFlags {
  std::string world_size;  // --world-size
  std::string rank;        // --rank
  std::string master;      // --master ADDR:PORT
  std::string timeout_s;   // --dist-timeout-s
  std::string backend;     // --dist-backend
};

// The settings from the flags and, for those not given, the torch
// environment variables WORLD_SIZE, RANK, MASTER_ADDR and MASTER_PORT read
// through `getenv` (nullptr = unset); flags win. Errors are one line naming
// the flag or the variable: a world size outside 1..64, a rank outside
// [0, world size), a master that is not ADDR:PORT (IPv6 as [ADDR]:PORT),
// a missing master with a world size above 1, a timeout outside
// 1..86400 s, an unknown backend.
absl::StatusOr<DistributedOptions> ResolveDistributedOptions(
    const DistributedFlags& flags,
    const std::function<const char*(const char*)>& getenv);

// Parses "ADDR:PORT" (IPv6 as "[ADDR]:PORT") into `host` and `port`;
// errors name `what` (e.g. "--master").
absl::Status ParseHostPort(std::string_view text, std::string_view what,
                           std::string* host, int* port);

// The same checks on settings made in code; an error names the field.
absl::Status CheckDistributedOptions(const DistributedOptions& options);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_DISTRIBUTED_H_
