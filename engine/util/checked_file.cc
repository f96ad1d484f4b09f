#include "engine/util/checked_file.h"

#include <array>
#include <bit>

#include "engine/util/strings.h"

namespace volkhv {
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

}  // namespace volkhv
