// An exclusive lock on a run directory, so that two loops never write one
// run at once (the second would repeat the first's generation and truncate
// its logs). An advisory flock(2) on RUN/lock, which holds the owner's pid;
// the kernel drops it when the process ends, however it ends.
#ifndef VOLKHV_TRAINING_RUN_LOCK_H_
#define VOLKHV_TRAINING_RUN_LOCK_H_

#include <string>

#include "absl/status/statusor.h"

namespace volkhv::training {

// Held while the object lives. Move-only. Not thread-safe (one owner).
class RunLock {
 public:
  // Takes the lock of `run_dir` (which must exist) without waiting. Errors:
  // FailedPrecondition naming the directory and the holder's pid when
  // another process (or another RunLock) holds it; PermissionDenied when
  // the lock file cannot be opened.
  static absl::StatusOr<RunLock> Acquire(const std::string& run_dir);

  RunLock(RunLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

 private:
  explicit RunLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_RUN_LOCK_H_
