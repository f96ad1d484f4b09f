// Bytes whose content is a protobuf message followed by a CRC-32 checksum
// field: the on-disk convention of network files and game record files
// (written with WriteFileAtomically, engine/util/files.h).
#ifndef VOLKHV_ENGINE_UTIL_CHECKED_FILE_H_
#define VOLKHV_ENGINE_UTIL_CHECKED_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace volkhv {

// CRC-32 (zlib's polynomial, as zlib.crc32 in Python). Thread-safe.
uint32_t Crc32(std::string_view bytes);

// Appends field 15 (fixed32) holding the CRC-32 of `body`; the result still
// parses as the same message. Thread-safe.
std::string WithChecksum(std::string body);

// The body of bytes written by WithChecksum, or DataLossError when the
// trailer is missing or the checksum does not match (a damaged or truncated
// file). `what` names the kind of file in messages ("network file").
// Thread-safe.
absl::StatusOr<std::string_view> CheckedBody(std::string_view bytes,
                                             std::string_view what);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_UTIL_CHECKED_FILE_H_
