#include "cli/evaluator_setup.h"

#include <algorithm>
#include <iostream>
#include <mutex>
#include <set>

#include "engine/util/strings.h"
#include "engine/games/games.h"
#include "nn/batching_evaluator.h"
#include "nn/bundled_net.h"
#include "nn/eigen_backend.h"
#include "nn/torch_backend.h"
#include "nn/weights_file.h"

namespace volkhv::cli {

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
      eigen_kernel == "auto" ? nn::EigenDefaultKernel() : eigen_kernel;
  return kernel == "avx512" || kernel == "avx2" ? "eigen" : "torch";
}

absl::StatusOr<std::unique_ptr<nn::Backend>> MakeBackend(
    const EvaluatorSettings& settings, const nn::NetworkWeights& weights) {
  const bool cpu = settings.device == "cpu";
  if (settings.backend == "eigen" && !cpu) {
    return absl::InvalidArgumentError(
        Cat("option '--backend': the eigen backend runs on the CPU, not on "
            "device '",
            settings.device, "'"));
  }
  absl::StatusOr<nn::Precision> precision =
      nn::ParsePrecision(settings.precision);
  if (!precision.ok()) {
    return absl::InvalidArgumentError(
        Cat("option '--precision': ", precision.status().message()));
  }
  const bool fp32 = *precision == nn::Precision::kFloat32;
  if (settings.backend == "eigen" && !fp32) {
    return absl::InvalidArgumentError(
        Cat("option '--precision': the eigen backend computes in fp32 only, "
            "not ",
            settings.precision, " (use --backend torch)"));
  }
  std::string backend = settings.backend;
  if (backend == "auto") backend = cpu && fp32 ? AutoCpuBackend() : "torch";
  if (backend == "eigen") {
    nn::EigenBackendOptions options;
    options.threads = settings.threads;
    options.max_batch = std::max(settings.max_batch, 1);
    return nn::MakeEigenBackend(weights, options);
  }
  nn::TorchBackendOptions options;
  options.device = settings.device;
  options.precision = *precision;
  options.threads = settings.threads;
  options.max_batch = std::max(settings.max_batch, 1);
  return nn::MakeTorchBackend(weights, options);
}

std::vector<OptionSpec> EvaluatorOptionSpecs() {
  const EvaluatorSettings d;
  return {
      {"net", "FILE", d.net,
       "network weights file, 'auto' (the game's bundled net from nets/ or "
       "$VOLKHV_NETS) or 'random' (uniform policy, value 0)"},
      {"backend", "NAME", d.backend,
       "inference backend: eigen (CPU), torch (LibTorch, CPU or GPU) or "
       "auto (on the CPU eigen where it has AVX2 or AVX-512 kernels, else "
       "torch; torch on a GPU or with --precision bf16|fp16)"},
      {"device", "DEV", d.device, "cpu, cuda or cuda:N (torch backend)"},
      {"precision", "P", d.precision,
       "torch backend's number format: fp32, bf16 or fp16 (fp16 needs a "
       "GPU)"},
      {"threads", "N", std::to_string(d.threads),
       "inference threads (0 = one per core)"},
      {"max-batch", "N", std::to_string(d.max_batch),
       "most positions per network call"},
      {"max-wait-us", "US", std::to_string(d.max_wait_us),
       "how long a partial batch waits for more positions"},
      {"cache", "N", std::to_string(d.cache_entries),
       "NN cache entries (0 = off)"},
  };
}

absl::StatusOr<EvaluatorSettings> EvaluatorSettingsFromCommandLine(
    const CommandLine& cl) {
  EvaluatorSettings s;
  s.net = cl.Get("net");
  s.backend = cl.Get("backend");
  s.device = cl.Get("device");
  s.precision = cl.Get("precision");
  if (absl::StatusOr<nn::Precision> p = nn::ParsePrecision(s.precision);
      !p.ok()) {
    return absl::InvalidArgumentError(
        Cat("option '--precision': ", p.status().message()));
  }
  if (s.backend == "eigen" && s.precision != "fp32") {
    return absl::InvalidArgumentError(
        Cat("option '--precision': the eigen backend computes in fp32 only, "
            "not ",
            s.precision, " (use --backend torch)"));
  }
  if (s.backend != "auto" && s.backend != "torch" && s.backend != "eigen") {
    return absl::InvalidArgumentError(
        Cat("option '--backend': unknown backend '", s.backend,
            "' (known: auto, eigen, torch)"));
  }
  if (s.backend == "eigen" && s.device != "cpu") {
    return absl::InvalidArgumentError(
        Cat("option '--backend': the eigen backend runs on the CPU, not on "
            "device '",
            s.device, "'"));
  }
  struct IntOption {
    const char* name;
    int min;
    int max;
    int* value;
  };
  for (const IntOption& o :
       {IntOption{"threads", 0, 1024, &s.threads},
        IntOption{"max-batch", 1, 4096, &s.max_batch},
        IntOption{"max-wait-us", 0, 10000000, &s.max_wait_us},
        IntOption{"cache", 0, 1 << 26, &s.cache_entries}}) {
    absl::StatusOr<int> v = cl.GetInt(o.name, o.min, o.max);
    if (!v.ok()) return v.status();
    *o.value = *v;
  }
  return s;
}

namespace {

// Says once per process and file which bundled net `--net auto` loaded.
void AnnounceBundledNet(const std::string& path, const Game& game,
                        const nn::NetworkWeights& weights) {
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
  if (net != nn::kAutoNet) return net;
  return nn::FindBundledNet(game.Info().name);
}

absl::StatusOr<std::unique_ptr<nn::Evaluator>> MakeEvaluator(
    const EvaluatorSettings& settings, const Game& game) {
  if (settings.net == "random") {
    return std::unique_ptr<nn::Evaluator>(
        std::make_unique<nn::UniformEvaluator>());
  }
  const bool bundled = settings.net == nn::kAutoNet;
  absl::StatusOr<std::string> path = ResolveNet(settings.net, game);
  if (!path.ok()) return path.status();
  // Errors about a bundled net say how to go on without it.
  auto fail = [&](const absl::Status& status) {
    return absl::Status(
        status.code(),
        bundled ? Cat(status.message(), " (the bundled ", game.Info().name,
                      " net; --net random plays without one)")
                : std::string(status.message()));
  };
  absl::StatusOr<nn::NetworkWeights> weights = nn::ReadNetworkWeights(*path);
  if (!weights.ok()) return fail(weights.status());
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder(game.Info(), nn::EncoderOptionsOf(*weights));
  if (!encoder.ok()) return fail(encoder.status());
  if (absl::Status fits =
          nn::CheckNetworkFits(*weights, game.Info().name, **encoder);
      !fits.ok()) {
    return fail(absl::InvalidArgumentError(Cat(*path, ": ", fits.message())));
  }
  absl::StatusOr<std::unique_ptr<nn::Backend>> backend =
      MakeBackend(settings, *weights);
  if (!backend.ok()) {
    return fail(absl::Status(backend.status().code(),
                             Cat(*path, ": ", backend.status().message())));
  }
  if (bundled) AnnounceBundledNet(*path, game, *weights);
  return std::unique_ptr<nn::Evaluator>(std::make_unique<nn::BatchingEvaluator>(
      *std::move(backend), *std::move(encoder),
      nn::BatchingOptions{settings.max_batch, settings.max_wait_us,
                          settings.cache_entries}));
}

}  // namespace volkhv::cli
