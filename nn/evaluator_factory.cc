#include "nn/evaluator_factory.h"

#include <algorithm>
#include <iostream>
#include <list>
#include <mutex>
#include <set>
#include <utility>

#include "engine/games/games.h"
#include "engine/util/strings.h"
#include "nn/batching_evaluator.h"
#include "nn/bundled_net.h"
#include "nn/eigen_backend.h"
#include "nn/torch_backend.h"

namespace volkhv::nn {

EvaluatorConfigNames ConfigFileNames(std::string_view prefix) {
  const std::string p(prefix);
  return {[p](std::string_view field) { return Cat(p, field); },
          [](std::string_view field, std::string_view value) {
            return Cat(field, ": \"", value, "\"");
          }};
}

absl::Status ValidateEvaluatorConfig(const proto::EvaluatorConfig& config,
                                     const EvaluatorConfigNames& names) {
  auto error = [&names](std::string_view field, const std::string& message) {
    return absl::InvalidArgumentError(Cat(names.field(field), ": ", message));
  };
  if (absl::StatusOr<Precision> p = ParsePrecision(config.precision());
      !p.ok()) {
    return error("precision", std::string(p.status().message()));
  }
  const bool eigen = config.backend() == "eigen";
  if (eigen && config.precision() != "fp32") {
    return error(
        "precision",
        Cat("the eigen backend computes in fp32 only, not ", config.precision(),
            " (use ", names.setting("backend", "torch"), ")"));
  }
  if (config.backend() != "auto" && config.backend() != "torch" && !eigen) {
    return error("backend", Cat("unknown backend '", OneLine(config.backend()),
                                "' (known: auto, eigen, torch)"));
  }
  if (eigen && config.device() != "cpu") {
    return error("backend",
                 Cat("the eigen backend runs on the CPU, not on device '",
                     OneLine(config.device()), "'"));
  }
  struct IntField {
    std::string_view name;
    int value;
    EvaluatorFieldRange range;
  };
  for (const IntField& f :
       {IntField{"threads", config.threads(), kEvaluatorThreadsRange},
        IntField{"max_batch", config.max_batch(), kEvaluatorMaxBatchRange},
        IntField{"max_wait_us", config.max_wait_us(), kEvaluatorMaxWaitUsRange},
        IntField{"cache_entries", config.cache_entries(),
                 kEvaluatorCacheEntriesRange}}) {
    if (f.value < f.range.min || f.value > f.range.max) {
      return error(f.name, Cat("must be in [", f.range.min, ", ", f.range.max,
                               "], got ", f.value));
    }
  }
  return absl::OkStatus();
}

// Measured with `volkhv bench nn --backend eigen|torch --threads 1|2 --batch
// 1,2,4,8,16,32,64,256` (the 6x64 net of configs/net-cpu.textproto, 8x8 board)
// on the 2-core development machine (AMD EPYC, Zen 5, shared with other
// work), medians of interleaved runs, in evaluations per second:
//   - eigen avx512: 6100-6600 at every batch size with 1 thread; LibTorch
//     950 at batch 1 rising to 3100 at batch 64 (2 threads: LibTorch's
//     OpenMP threads stall under load, 7-2000);
//   - eigen avx2: 3800-4200; LibTorch limited to AVX2 (ATEN_CPU_CAPABILITY=
//     avx2, ONEDNN_MAX_CPU_ISA=AVX2): 940 rising to 1600;
//   - eigen's portable path: 700-880; LibTorch limited to AVX (as on a CPU
//     without AVX2): 870 at batch 1 rising to 1340, ahead at every size
//     with 1 thread.
// So no batch size changes the choice: eigen where its direct kernels run,
// else LibTorch.
std::string AutoCpuBackend(const std::string& eigen_kernel) {
  const std::string kernel =
      eigen_kernel == "auto" ? EigenDefaultKernel() : eigen_kernel;
  return kernel == "avx512" || kernel == "avx2" ? "eigen" : "torch";
}

absl::StatusOr<std::unique_ptr<Backend>> MakeBackend(
    const proto::EvaluatorConfig& config, const NetworkWeights& weights) {
  if (absl::Status valid = ValidateEvaluatorConfig(config); !valid.ok()) {
    return valid;
  }
  // Valid: the precision parses.
  const Precision precision = *ParsePrecision(config.precision());
  const bool cpu = config.device() == "cpu";
  const bool fp32 = precision == Precision::kFloat32;
  std::string backend = config.backend();
  if (backend == "auto") backend = cpu && fp32 ? AutoCpuBackend() : "torch";
  if (backend == "eigen") {
    EigenBackendOptions options;
    options.threads = config.threads();
    options.max_batch = config.max_batch();
    return MakeEigenBackend(weights, options);
  }
  TorchBackendOptions options;
  options.device = config.device();
  options.precision = precision;
  options.threads = config.threads();
  options.max_batch = config.max_batch();
  return MakeTorchBackend(weights, options);
}

namespace {

// Says once per process and file which bundled net `--net auto` loaded.
void AnnounceBundledNet(const std::string& path, const Game& game,
                        const NetworkWeights& weights) {
  static std::mutex mutex;
  static std::set<std::string> announced;
  std::lock_guard<std::mutex> lock(mutex);
  if (!announced.insert(path).second) return;
  std::cerr << "volkhv: net auto: " << path << " (" << game.Info().name
            << ", generation " << weights.header.provenance().generation()
            << ")" << std::endl;
}

}  // namespace

absl::StatusOr<std::string> ResolveNet(const std::string& net,
                                       const Game& game) {
  if (net != kAutoNet) return net;
  return FindBundledNet(game.Info().name);
}

absl::StatusOr<std::shared_ptr<Evaluator>> MakeEvaluator(
    const proto::EvaluatorConfig& config, const std::string& net,
    const Game& game) {
  if (absl::Status valid = ValidateEvaluatorConfig(config); !valid.ok()) {
    return valid;
  }
  if (net == "random") return std::make_shared<UniformEvaluator>();
  const bool bundled = net == kAutoNet;
  absl::StatusOr<std::string> path = ResolveNet(net, game);
  if (!path.ok()) return path.status();
  // Errors about a bundled net say how to go on without it.
  auto fail = [&](const absl::Status& status) {
    return absl::Status(
        status.code(),
        bundled ? Cat(status.message(), " (the bundled ", game.Info().name,
                      " net; --net random plays without one)")
                : std::string(status.message()));
  };
  absl::StatusOr<NetworkWeights> weights = ReadNetworkWeights(*path);
  if (!weights.ok()) return fail(weights.status());
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder(game.Info(), EncoderOptionsOf(*weights));
  if (!encoder.ok()) return fail(encoder.status());
  if (absl::Status fits =
          CheckNetworkFits(*weights, game.Info().name, **encoder);
      !fits.ok()) {
    return fail(absl::InvalidArgumentError(Cat(*path, ": ", fits.message())));
  }
  absl::StatusOr<std::unique_ptr<Backend>> backend =
      MakeBackend(config, *weights);
  if (!backend.ok()) {
    return fail(absl::Status(backend.status().code(),
                             Cat(*path, ": ", backend.status().message())));
  }
  if (bundled) AnnounceBundledNet(*path, game, *weights);
  return std::make_shared<BatchingEvaluator>(
      *std::move(backend), *std::move(encoder),
      BatchingOptions{config.max_batch(), config.max_wait_us(),
                      config.cache_entries()});
}

EvaluatorFactory MakeEvaluatorFactory(proto::EvaluatorConfig config) {
  return
      [config = std::move(config)](const std::string& net, const Game& game) {
        return MakeEvaluator(config, net, game);
      };
}

EvaluatorFactory CachingEvaluatorFactory(EvaluatorFactory make, int keep) {
  struct Cache {
    std::mutex mutex;
    // (game name, net) and its evaluator, the most recently asked for last.
    std::list<std::pair<std::pair<std::string, std::string>,
                        std::shared_ptr<Evaluator>>>
        loaded;
  };
  auto cache = std::make_shared<Cache>();
  return [make = std::move(make), keep, cache](
             const std::string& net,
             const Game& game) -> absl::StatusOr<std::shared_ptr<Evaluator>> {
    std::pair<std::string, std::string> key{game.Info().name, net};
    std::lock_guard<std::mutex> lock(cache->mutex);
    for (auto it = cache->loaded.begin(); it != cache->loaded.end(); ++it) {
      if (it->first != key) continue;
      cache->loaded.splice(cache->loaded.end(), cache->loaded, it);
      return cache->loaded.back().second;
    }
    if (!make) return absl::FailedPreconditionError("no evaluator factory");
    absl::StatusOr<std::shared_ptr<Evaluator>> made = make(net, game);
    if (!made.ok()) return made.status();
    cache->loaded.emplace_back(std::move(key), *made);
    if (keep > 0 && static_cast<int>(cache->loaded.size()) > keep) {
      cache->loaded.pop_front();
    }
    return *std::move(made);
  };
}

}  // namespace volkhv::nn
