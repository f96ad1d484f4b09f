// Whole files: reading one with a bound on its size, checked before anything
// is allocated (a regular file by its size, anything else, a pipe or
// /dev/zero, by reading no more than the bound), and writing one atomically.
#ifndef VOLKHV_ENGINE_UTIL_FILES_H_
#define VOLKHV_ENGINE_UTIL_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace volkhv {

// Input size limits (docs/formats.md gives each file's).
inline constexpr int64_t kMaxTextFileBytes = int64_t{64} << 20;   // 64 MB
inline constexpr int64_t kMaxConfigFileBytes = int64_t{1} << 20;  // 1 MB
inline constexpr int64_t kMaxRecordFileBytes = int64_t{256} << 20;

// The whole file at `path`. Errors start with the path: it cannot be
// opened, it is larger than `max_bytes` ("<path>: larger than the limit of
// N bytes for a <what>"), or, with `regular_only`, it is not a regular file.
absl::StatusOr<std::string> ReadBoundedFile(const std::string& path,
                                            int64_t max_bytes,
                                            std::string_view what,
                                            bool regular_only = false);

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

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_UTIL_FILES_H_
