#include "nn/checked_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/game/bounded_file.h"
#include "engine/game/strings.h"

namespace volkhv::nn {
namespace {

// Field 15, wire type 5 (fixed32), then 4 bytes little-endian.
constexpr unsigned char kChecksumTag = (15 << 3) | 5;
constexpr size_t kTrailerSize = 5;

constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = MakeCrcTable();

void AppendLittleEndian(uint32_t value, std::string* out) {
  for (int i = 0; i < 4; ++i)
    out->push_back(static_cast<char>(value >> (8 * i)));
}

uint32_t ReadLittleEndian(const char* p) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = value << 8 | static_cast<unsigned char>(p[i]);
  }
  return value;
}

}  // namespace

uint32_t Crc32(std::string_view bytes) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) c = kCrcTable[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string WithChecksum(std::string body) {
  const uint32_t crc = Crc32(body);
  body.push_back(static_cast<char>(kChecksumTag));
  AppendLittleEndian(crc, &body);
  return body;
}

absl::StatusOr<std::string_view> CheckedBody(std::string_view bytes,
                                             std::string_view what) {
  if (bytes.size() < kTrailerSize ||
      static_cast<unsigned char>(bytes[bytes.size() - kTrailerSize]) !=
          kChecksumTag) {
    return absl::DataLossError(Cat("not a ", what,
                                   ", or truncated: no checksum at the end (",
                                   bytes.size(), " bytes)"));
  }
  const std::string_view body = bytes.substr(0, bytes.size() - kTrailerSize);
  if (Crc32(body) != ReadLittleEndian(bytes.data() + bytes.size() - 4)) {
    return absl::DataLossError(
        Cat("checksum mismatch: the ", what, " is damaged or truncated"));
  }
  return body;
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

}  // namespace volkhv::nn
