#include "engine/util/time.h"

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace volkhv {

std::string UtcTimestamp() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(),
                          absl::UTCTimeZone());
}

std::string CompactUtcTimestamp() {
  return absl::FormatTime("%Y%m%dT%H%M%SZ", absl::Now(), absl::UTCTimeZone());
}

}  // namespace volkhv
