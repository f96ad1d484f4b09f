// Reading a whole input file with a bound on its size, checked before
// anything is allocated: a regular file by its size, anything else (a pipe,
// /dev/zero) by reading no more than the bound.
#ifndef VOLKHV_ENGINE_GAME_BOUNDED_FILE_H_
#define VOLKHV_ENGINE_GAME_BOUNDED_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

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

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_BOUNDED_FILE_H_
