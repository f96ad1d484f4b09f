#include "selfplay/selfplay_config.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/util/strings.h"
#include "nn/text_proto.h"

namespace volkhv::selfplay {
namespace {

absl::Status IntInRange(std::string_view field, int64_t value, int64_t min,
                        int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      Cat(field, ": must be in [", min, ", ", max, "], got ", value));
}

absl::Status DoubleInRange(std::string_view field, double value, double min,
                           double max) {
  // NaN fails both comparisons.
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: must be in [%g, %g], got %g", std::string(field), min, max, value));
}

// Search parameters that the config's own fields set.
constexpr std::string_view kOwnSearchParams[] = {
    "root_noise", "dirichlet_alpha_factor", "dirichlet_epsilon",
    "forced_playouts_k", "minibatch_size"};

}  // namespace

absl::Status ValidateSelfplayConfig(const proto::SelfplayConfig& c) {
  constexpr int64_t kMaxVisits = 10'000'000;
  const absl::Status checks[] = {
      IntInRange("games", c.games(), 0, 1'000'000'000),
      IntInRange("parallel_games", c.parallel_games(), 1, 4096),
      IntInRange("visits", c.visits(), 1, kMaxVisits),
      IntInRange("cheap_visits", c.cheap_visits(), 1, kMaxVisits),
      DoubleInRange("full_search_prob", c.full_search_prob(), 0, 1),
      DoubleInRange("temperature", c.temperature(), 0, 100),
      IntInRange("temperature_plies", c.temperature_plies(), 0, 1'000'000),
      DoubleInRange("final_temperature", c.final_temperature(), 0, 100),
      DoubleInRange("dirichlet_alpha_factor", c.dirichlet_alpha_factor(), 0.001,
                    1000),
      DoubleInRange("dirichlet_epsilon", c.dirichlet_epsilon(), 0, 1),
      DoubleInRange("forced_playouts_k", c.forced_playouts_k(), 0, 100),
      DoubleInRange("resign_threshold", c.resign_threshold(), -1, 1),
      IntInRange("resign_consecutive_plies", c.resign_consecutive_plies(), 0,
                 100'000),
      DoubleInRange("resign_playthrough_fraction",
                    c.resign_playthrough_fraction(), 0, 1),
      IntInRange("max_plies", c.max_plies(), 1, 1'000'000),
      IntInRange("games_per_file", c.games_per_file(), 1, 1'000'000),
      IntInRange("minibatch", c.minibatch(), 1, 4096),
  };
  for (const absl::Status& status : checks) {
    if (!status.ok()) return status;
  }
  if (c.cheap_visits() > c.visits()) {
    return absl::InvalidArgumentError(
        Cat("cheap_visits: must not exceed visits (", c.visits(), "), got ",
            c.cheap_visits()));
  }
  search::SearchParams scratch;
  for (int i = 0; i < c.search_params_size(); ++i) {
    const proto::SelfplayConfig::SearchParam& p = c.search_params(i);
    for (std::string_view own : kOwnSearchParams) {
      if (p.name() == own) {
        return absl::InvalidArgumentError(
            Cat("search_params: '", own,
                "' is set by the config's own fields, not here"));
      }
    }
    if (absl::Status s = search::SetSearchParam(&scratch, p.name(), p.value());
        !s.ok()) {
      return absl::InvalidArgumentError(Cat("search_params: ", s.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status MergeSelfplayConfigText(std::string_view text,
                                     std::string_view source_name,
                                     proto::SelfplayConfig* config) {
  if (absl::Status s = nn::MergeTextProto(text, source_name, config); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateSelfplayConfig(*config); !s.ok()) {
    return absl::InvalidArgumentError(Cat(source_name, ": ", s.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<proto::SelfplayConfig> ParseSelfplayConfig(
    std::string_view text, std::string_view source_name) {
  proto::SelfplayConfig config;
  if (absl::Status s = MergeSelfplayConfigText(text, source_name, &config);
      !s.ok()) {
    return s;
  }
  return config;
}

absl::StatusOr<proto::SelfplayConfig> ReadSelfplayConfig(
    const std::string& path) {
  absl::StatusOr<std::string> text = nn::ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseSelfplayConfig(*text, path);
}

absl::StatusOr<search::SearchParams> SelfplaySearchParams(
    const proto::SelfplayConfig& config, bool full_search) {
  if (absl::Status s = ValidateSelfplayConfig(config); !s.ok()) return s;
  search::SearchParams params;
  // Self-play leaves the leaves to the net unless search_params asks for
  // quiescence: play's default (docs/search.md) is measured for learning
  // only in Tavreli, where it helps (configs/tavreli-cpu-quiescence).
  params.leaf_quiescence_weight = 0;
  params.leaf_search_depth = 0;  // the loop configs were measured without it
  params.root_search_depth = 0;  // neither
  for (const proto::SelfplayConfig::SearchParam& p : config.search_params()) {
    if (absl::Status s = search::SetSearchParam(&params, p.name(), p.value());
        !s.ok()) {
      return s;
    }
  }
  if (full_search && config.targets_without_root_search()) {
    params.root_search_depth = 0;
  }
  params.minibatch_size = config.minibatch();
  params.dirichlet_alpha_factor = config.dirichlet_alpha_factor();
  params.dirichlet_epsilon = config.dirichlet_epsilon();
  if (params.gumbel) {
    // Gumbel's own noise explores; its target needs no pruning.
    params.gumbel_noise = true;
    params.root_noise = false;
    params.forced_playouts_k = 0;
    return params;
  }
  params.root_noise = full_search && config.dirichlet_epsilon() > 0;
  params.forced_playouts_k = full_search ? config.forced_playouts_k() : 0;
  return params;
}

}  // namespace volkhv::selfplay
