// Wall-clock time as text, through absl::FormatTime.
#ifndef VOLKHV_ENGINE_UTIL_TIME_H_
#define VOLKHV_ENGINE_UTIL_TIME_H_

#include <string>

namespace volkhv {

// Now in UTC, ISO 8601 to the second: "2026-11-30T12:34:56Z". Thread-safe.
std::string UtcTimestamp();

// Now in UTC, without separators, fit for a file name: "20261130T123456Z".
// Thread-safe.
std::string CompactUtcTimestamp();

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_UTIL_TIME_H_
