#include "cli/evaluator_setup.h"

#include "engine/game/strings.h"
#include "nn/batching_evaluator.h"
#include "nn/torch_backend.h"
#include "nn/weights_file.h"

namespace volkhv::cli {

std::vector<OptionSpec> EvaluatorOptionSpecs() {
  const EvaluatorSettings d;
  return {
      {"net", "FILE", d.net, "network weights file, or 'random' (uniform "
                             "policy, value 0)"},
      {"backend", "NAME", d.backend, "inference backend: auto or torch"},
      {"device", "DEV", d.device, "cpu, cuda or cuda:N (torch backend)"},
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
  if (s.backend != "auto" && s.backend != "torch") {
    return absl::InvalidArgumentError(
        Cat("option '--backend': unknown backend '", s.backend,
            "' (known: auto, torch)"));
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

absl::StatusOr<std::unique_ptr<nn::Evaluator>> MakeEvaluator(
    const EvaluatorSettings& settings, const Game& game) {
  if (settings.net == "random") {
    return std::unique_ptr<nn::Evaluator>(
        std::make_unique<nn::UniformEvaluator>());
  }
  absl::StatusOr<nn::NetworkWeights> weights =
      nn::ReadNetworkWeights(settings.net);
  if (!weights.ok()) return weights.status();
  absl::StatusOr<std::unique_ptr<nn::Encoder>> encoder =
      nn::MakeEncoder(game.Info(), nn::EncoderOptionsOf(*weights));
  if (!encoder.ok()) return encoder.status();
  if (absl::Status fits =
          nn::CheckNetworkFits(*weights, game.Info().name, **encoder);
      !fits.ok()) {
    return absl::InvalidArgumentError(Cat(settings.net, ": ", fits.message()));
  }
  nn::TorchBackendOptions options;
  options.device = settings.device;
  options.threads = settings.threads;
  options.max_batch = std::max(settings.max_batch, 1);
  absl::StatusOr<std::unique_ptr<nn::Backend>> backend =
      nn::MakeTorchBackend(*weights, options);
  if (!backend.ok()) return backend.status();
  return std::unique_ptr<nn::Evaluator>(
      std::make_unique<nn::BatchingEvaluator>(
          *std::move(backend), *std::move(encoder),
          nn::BatchingOptions{settings.max_batch, settings.max_wait_us,
                              settings.cache_entries}));
}

}  // namespace volkhv::cli
