#include "engine/game/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/game/strings.h"

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

}  // namespace volkhv
