#include "engine/util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/util/strings.h"

namespace volkhv {

absl::StatusOr<std::string> ReadBoundedFile(const std::string& path,
                                            int64_t max_bytes,
                                            std::string_view what,
                                            bool regular_only) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        Cat(path, ": cannot open: ", std::strerror(errno)));
  }
  auto too_large = [&] {
    return absl::InvalidArgumentError(Cat(path, ": larger than the limit of ",
                                          max_bytes, " bytes for a ", what));
  };
  struct stat info;
  if (fstat(fd, &info) != 0) {
    const std::string error = std::strerror(errno);
    close(fd);
    return absl::DataLossError(Cat(path, ": cannot stat: ", error));
  }
  const bool regular = S_ISREG(info.st_mode);
  if (!regular && regular_only) {
    close(fd);
    return absl::InvalidArgumentError(
        Cat(path, ": not a regular file (a ", what, " must be one)"));
  }
  if (S_ISDIR(info.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(Cat(path, ": is a directory"));
  }
  if (regular && info.st_size > max_bytes) {
    close(fd);
    return too_large();
  }
  std::string bytes;
  if (regular) bytes.reserve(static_cast<size_t>(info.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string error = std::strerror(errno);
      close(fd);
      return absl::DataLossError(Cat(path, ": read error: ", error));
    }
    if (n == 0) break;
    if (static_cast<int64_t>(bytes.size()) + n > max_bytes) {
      close(fd);
      return too_large();
    }
    bytes.append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  return bytes;
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path,
                                          int64_t max_bytes,
                                          std::string_view what) {
  return ReadBoundedFile(path, max_bytes, what, /*regular_only=*/true);
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes) {
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) {
    return absl::PermissionDeniedError(
        Cat(path, ": cannot create a temporary file: ", std::strerror(errno)));
  }
  auto fail = [&](std::string_view what) {
    const std::string error = std::strerror(errno);
    close(fd);
    unlink(temp.c_str());
    return absl::InternalError(Cat(path, ": ", what, ": ", error));
  };
  const char* data = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write failed");
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp makes the file 0600; these files are shared like any other.
  fchmod(fd, 0644);
  if (fsync(fd) != 0) return fail("fsync failed");
  if (close(fd) != 0) {
    const std::string error = std::strerror(errno);
    unlink(temp.c_str());
    return absl::InternalError(Cat(path, ": close failed: ", error));
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    const std::string error = std::strerror(errno);
    unlink(temp.c_str());
    return absl::InternalError(Cat(path, ": rename failed: ", error));
  }
  const size_t slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
  return absl::OkStatus();
}

}  // namespace volkhv
