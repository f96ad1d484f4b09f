// The self-play settings (proto/selfplay_config.proto): reading them from
// text format, checking them, and the search parameters they imply.
// Thread-safety: free functions without shared state.
#ifndef VOLKHV_SELFPLAY_SELFPLAY_CONFIG_H_
#define VOLKHV_SELFPLAY_SELFPLAY_CONFIG_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/search/search_params.h"
#include "proto/selfplay_config.pb.h"

namespace volkhv::selfplay {

// Checks every field's range (and the search_params entries). Errors name
// the field: "visits: must be in [1, 10000000], got 0".
absl::Status ValidateSelfplayConfig(const proto::SelfplayConfig& config);

// Parses text format merged over `config` (defaults for unset fields), then
// validates. Unknown fields, syntax errors and bad values are errors that
// start with `source_name` and name the field (and the line). On error
// *config is unspecified.
absl::Status MergeSelfplayConfigText(std::string_view text,
                                     std::string_view source_name,
                                     proto::SelfplayConfig* config);
// A config from text alone / from a file (errors start with the path).
absl::StatusOr<proto::SelfplayConfig> ParseSelfplayConfig(
    std::string_view text, std::string_view source_name);
absl::StatusOr<proto::SelfplayConfig> ReadSelfplayConfig(
    const std::string& path);

// The search parameters of a full search (noise, forced playouts) or of a
// cheap one (neither), from a valid config: the search defaults, then
// `search_params`, then the config's own fields.
absl::StatusOr<search::SearchParams> SelfplaySearchParams(
    const proto::SelfplayConfig& config, bool full_search);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_SELFPLAY_CONFIG_H_
