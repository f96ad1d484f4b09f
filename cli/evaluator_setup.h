// The options every command that evaluates positions shares (--net,
// --device, ...) and the evaluator they describe.
#ifndef VOLKHV_CLI_EVALUATOR_SETUP_H_
#define VOLKHV_CLI_EVALUATOR_SETUP_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "engine/game/game.h"
#include "nn/backend.h"
#include "nn/evaluator.h"
#include "nn/weights_file.h"

namespace volkhv::cli {

// --net, --backend, --device, --precision, --threads, --max-batch,
// --max-wait-us, --cache.
std::vector<OptionSpec> EvaluatorOptionSpecs();

struct EvaluatorSettings {
  // A weights file, "auto" (the game's bundled net, nn/bundled_net.h) or
  // "random" (uniform priors, value 0).
  std::string net = "auto";
  std::string backend = "auto";
  std::string device = "cpu";
  // fp32, bf16 or fp16 (nn::ParsePrecision): the torch backend's number
  // format; eigen computes in fp32 only.
  std::string precision = "fp32";
  int threads = 0;  // 0: one per core
  int max_batch = 256;
  int max_wait_us = 300;
  int cache_entries = 1 << 18;
};

absl::StatusOr<EvaluatorSettings> EvaluatorSettingsFromCommandLine(
    const CommandLine& cl);

// What `--backend auto` runs on the CPU, given the eigen backend's kernel
// ("auto" = the one this CPU runs): "eigen" when that is a direct kernel
// (AVX2 or AVX-512), else "torch"; the same at every batch size, as
// measured (see the .cc). On a GPU device, auto is torch.
std::string AutoCpuBackend(const std::string& eigen_kernel = "auto");

// The backend the settings name for `weights` (already read and checked):
// torch (LibTorch, --device), eigen (CPU only, fp32 only) or auto
// (AutoCpuBackend on the CPU in fp32, torch on a GPU or in bf16/fp16).
absl::StatusOr<std::unique_ptr<nn::Backend>> MakeBackend(
    const EvaluatorSettings& settings, const nn::NetworkWeights& weights);

// The file a net name stands for in `game`: `auto` is the game's bundled net
// (nn::FindBundledNet; NotFound names the paths tried), anything else is
// returned unchanged ("random" too).
absl::StatusOr<std::string> ResolveNet(const std::string& net,
                                       const Game& game);

// `random`: uniform priors, value 0 (nn::UniformEvaluator). A file (or
// `auto`, resolved by ResolveNet): the net is read and checked against the
// game, then served by its backend behind a batching evaluator with an NN
// cache. The first time a process loads a bundled net it says which file on
// stderr. The result is thread-safe (shared by every search of the
// process). Errors name the file and what is wrong; for a bundled net they
// add that `--net random` plays without one.
absl::StatusOr<std::unique_ptr<nn::Evaluator>> MakeEvaluator(
    const EvaluatorSettings& settings, const Game& game);

}  // namespace volkhv::cli

#endif  // VOLKHV_CLI_EVALUATOR_SETUP_H_
