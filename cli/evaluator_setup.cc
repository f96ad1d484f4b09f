#include "cli/evaluator_setup.h"

#include <string>
#include <string_view>

#include "engine/util/strings.h"
#include "nn/bundled_net.h"
#include "nn/evaluator_factory.h"

namespace volkhv::cli {
namespace {

// The command line's --threads default: one inference thread per core.
constexpr int kDefaultThreads = 0;

// The option of each integer field of EvaluatorConfig, with its range and
// setter.
struct IntOption {
  const char* flag;
  nn::EvaluatorFieldRange range;
  void (proto::EvaluatorConfig::*set)(int32_t);
};
constexpr IntOption kIntOptions[] = {
    {"threads", nn::kEvaluatorThreadsRange,
     &proto::EvaluatorConfig::set_threads},
    {"max-batch", nn::kEvaluatorMaxBatchRange,
     &proto::EvaluatorConfig::set_max_batch},
    {"max-wait-us", nn::kEvaluatorMaxWaitUsRange,
     &proto::EvaluatorConfig::set_max_wait_us},
    {"cache", nn::kEvaluatorCacheEntriesRange,
     &proto::EvaluatorConfig::set_cache_entries},
};

// The option that sets an EvaluatorConfig field.
std::string Flag(std::string_view field) {
  if (field == "max_batch") return "max-batch";
  if (field == "max_wait_us") return "max-wait-us";
  if (field == "cache_entries") return "cache";
  return std::string(field);
}

}  // namespace

std::vector<OptionSpec> EvaluatorOptionSpecs() {
  const proto::EvaluatorConfig d;
  return {
      {"net", "FILE", std::string(nn::kAutoNet),
       "network weights file, 'auto' (the game's bundled net from nets/ or "
       "$VOLKHV_NETS) or 'random' (uniform policy, value 0)"},
      {"backend", "NAME", d.backend(),
       "inference backend: eigen (CPU), torch (LibTorch, CPU or GPU) or "
       "auto (on the CPU eigen where it has AVX2 or AVX-512 kernels, else "
       "torch; torch on a GPU or with --precision bf16|fp16)"},
      {"device", "DEV", d.device(), "cpu, cuda or cuda:N (torch backend)"},
      {"precision", "P", d.precision(),
       "torch backend's number format: fp32, bf16 or fp16 (fp16 needs a "
       "GPU)"},
      {"threads", "N", std::to_string(kDefaultThreads),
       "inference threads (0 = one per core)"},
      {"max-batch", "N", std::to_string(d.max_batch()),
       "most positions per network call"},
      {"max-wait-us", "US", std::to_string(d.max_wait_us()),
       "how long a partial batch waits for more positions"},
      {"cache", "N", std::to_string(d.cache_entries()),
       "NN cache entries (0 = off)"},
  };
}

absl::StatusOr<proto::EvaluatorConfig> EvaluatorConfigFromCommandLine(
    const CommandLine& cl) {
  proto::EvaluatorConfig config;
  config.set_backend(cl.Get("backend"));
  config.set_device(cl.Get("device"));
  config.set_precision(cl.Get("precision"));
  config.set_threads(kDefaultThreads);
  // The integer fields keep valid values until they are read, after the
  // others are checked (an error about those comes first).
  const nn::EvaluatorConfigNames names{
      [](std::string_view field) {
        return Cat("option '--", Flag(field), "'");
      },
      [](std::string_view field, std::string_view value) {
        return Cat("--", Flag(field), " ", value);
      }};
  if (absl::Status s = nn::ValidateEvaluatorConfig(config, names); !s.ok()) {
    return s;
  }
  for (const IntOption& o : kIntOptions) {
    absl::StatusOr<int> v = cl.GetInt(o.flag, o.range.min, o.range.max);
    if (!v.ok()) return v.status();
    (config.*o.set)(*v);
  }
  return config;
}

}  // namespace volkhv::cli
