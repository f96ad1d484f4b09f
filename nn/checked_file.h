// Files whose content is a protobuf message followed by a CRC-32 checksum
// field, written atomically: the on-disk convention of network files and
// game record files. LibTorch-free.
#ifndef VOLKHV_NN_CHECKED_FILE_H_
#define VOLKHV_NN_CHECKED_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace volkhv::nn {

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

// Whole file, which must be a regular file of at most `max_bytes` bytes
// (checked before reading; `what` names the kind of file in that error).
// Errors start with the path. Thread-safe.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path,
                                          int64_t max_bytes = int64_t{1} << 30,
                                          std::string_view what = "file");

// Writes a temporary file in the same directory, fsyncs it, renames it over
// `path` and fsyncs the directory: readers see the old file or the complete
// new one, never a part. Errors start with the path. Thread-safe for
// different paths.
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_CHECKED_FILE_H_
