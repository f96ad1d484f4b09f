#include "training/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::training {
namespace {

// The pid written by the holder, or "unknown".
std::string HolderPid(int fd) {
  char buffer[32] = {};
  const ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
  const std::optional<int> pid =
      n <= 0
          ? std::nullopt
          : ToInt<int>(Trim(std::string_view(buffer, static_cast<size_t>(n))));
  if (!pid) {
    return "unknown";
  }
  return std::to_string(*pid);
}

}  // namespace

absl::StatusOr<RunLock> RunLock::Acquire(const std::string& run_dir) {
  const std::string path = run_dir + "/lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = HolderPid(fd);
    close(fd);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat(run_dir, " is in use by another volkhv loop (pid ",
                       holder, "); stop it first"));
    }
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot lock: ", std::strerror(error)));
  }
  // The pid only serves a second loop's message: the lock holds without it.
  const std::string pid = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, pid.data(), pid.size(), 0);
  return RunLock(fd);
}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

RunLock::~RunLock() {
  if (fd_ >= 0) close(fd_);  // closing the last descriptor drops the lock
}

}  // namespace volkhv::training
