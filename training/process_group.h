// The processes of one distributed training (training/distributed.h) as a
// LibTorch c10d process group: rendezvous through a c10d::TCPStore that rank
// 0 serves at the master's address, then collectives through
// c10d::ProcessGroupGloo (CPU tensors; CUDA tensors go through the host).
// Includes LibTorch: only for the trainer.
//
// Every collective must be called by every rank in the same order; each
// waits at most the options' timeout for the other ranks. A rank that dies
// closes its connections, so the others fail at their next collective
// instead of waiting out the timeout.
//
// Thread-safety: a ProcessGroup is used from one thread (the trainer's;
// the autograd engine runs CPU backward passes on the calling thread).
#ifndef VOLKHV_TRAINING_PROCESS_GROUP_H_
#define VOLKHV_TRAINING_PROCESS_GROUP_H_

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "training/distributed.h"

namespace volkhv::training {

class ProcessGroup {
 public:
  // Meets the other world_size - 1 processes: rank 0 listens on the
  // master's port, the others connect to it; fails (naming the master and
  // the timeout) when not all have arrived within the timeout, when the
  // port is taken or the address unknown, or for backend "nccl" in a build
  // without it.
  static absl::StatusOr<std::unique_ptr<ProcessGroup>> Connect(
      const DistributedOptions& options);
  ~ProcessGroup();

  int rank() const { return options_.rank; }
  int world_size() const { return options_.world_size; }

  // In place, the element-wise sum over the ranks; throws (c10::Error or
  // std::exception) when a rank is gone or the timeout passes. For use
  // inside the training step, whose errors are exceptions.
  void AllReduceSumOrThrow(torch::Tensor& tensor);
  // In place, rank 0's tensor on every rank; throws as AllReduceSumOrThrow.
  void BroadcastOrThrow(torch::Tensor& tensor);

  // As above, errors as a Status naming `what`.
  absl::Status AllReduceSum(torch::Tensor& tensor, std::string_view what);
  absl::Status Broadcast(torch::Tensor& tensor, std::string_view what);
  // Rank 0's `bytes` on every rank (any length up to 2 GiB).
  absl::Status BroadcastBytes(std::string* bytes, std::string_view what);

 private:
  struct Impl;
  ProcessGroup(DistributedOptions options, std::unique_ptr<Impl> impl);
  absl::Status Failed(std::string_view what, std::string_view why) const;

  DistributedOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_PROCESS_GROUP_H_
