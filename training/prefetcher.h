// Builds batches on background threads ahead of the optimiser, in step
// order, and measures how long the optimiser waits for them. LibTorch-free.
#ifndef VOLKHV_TRAINING_PREFETCHER_H_
#define VOLKHV_TRAINING_PREFETCHER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "training/dataset.h"

namespace volkhv::training {

// `fill(step, batch)` builds the batch of optimiser step `step` (it must
// depend on `step` only, so any thread may build any batch). Steps
// first_step, first_step + 1, ... are built by `threads` threads into
// `depth` reused buffers; Next() hands them out in order.
//
// Thread-safety: Next() and the accessors from one thread (the optimiser's)
// only; `fill` is called concurrently from the worker threads.
class Prefetcher {
 public:
  using FillFunction = std::function<absl::Status(int64_t step, Batch*)>;

  Prefetcher(FillFunction fill, int64_t first_step, int threads, int depth);
  ~Prefetcher();  // stops and joins the threads
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The next step's batch. The batch returned before is released (its
  // buffer may be refilled) by this call: use it before calling again.
  // Blocks while the batch is not built yet; that time is the wait.
  absl::StatusOr<const Batch*> Next();

  // Seconds Next() spent waiting for a batch.
  double wait_seconds() const { return wait_seconds_; }

 private:
  void Work();

  FillFunction fill_;
  absl::Status start_error_;  // no loader thread could be started
  const int depth_;
  std::vector<Batch> slots_;
  std::vector<int64_t> ready_step_;  // [slot]: the step built there, or -1
  std::vector<absl::Status> slot_status_;

  std::mutex mutex_;
  std::condition_variable changed_;
  int64_t next_to_claim_;  // the next step a worker builds
  int64_t released_;       // steps below this are consumed and released
  int64_t next_to_hand_;   // the step Next() returns next
  bool holding_ = false;   // Next() handed out next_to_hand_ - 1
  bool stop_ = false;
  double wait_seconds_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_PREFETCHER_H_
