// The one way evaluators are built from settings: an EvaluatorConfig
// (proto/loop_config.proto: backend, device, precision, threads, batching,
// cache) and a net name make an evaluator for a game. The command line
// (cli/evaluator_setup.h turns its flags into an EvaluatorConfig) and the
// generation loop (LoopConfig.evaluator) both come here; libraries get
// evaluators through an nn::EvaluatorFactory (nn/evaluator.h), which
// MakeEvaluatorFactory makes from a config.
//
// Links LibTorch (the torch backend) and Eigen; the rules and search
// libraries do not link this one.
#ifndef VOLKHV_NN_EVALUATOR_FACTORY_H_
#define VOLKHV_NN_EVALUATOR_FACTORY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "nn/backend.h"
#include "nn/evaluator.h"
#include "nn/weights_file.h"
#include "proto/loop_config.pb.h"

namespace volkhv::nn {

// The accepted range of an integer field of EvaluatorConfig; the command
// line's options take the same ranges.
struct EvaluatorFieldRange {
  int min;
  int max;
};
inline constexpr EvaluatorFieldRange kEvaluatorThreadsRange{0, 1024};
inline constexpr EvaluatorFieldRange kEvaluatorMaxBatchRange{1, 4096};
inline constexpr EvaluatorFieldRange kEvaluatorMaxWaitUsRange{0, 10000000};
inline constexpr EvaluatorFieldRange kEvaluatorCacheEntriesRange{0, 1 << 26};

// How errors about an EvaluatorConfig name its fields, so that a config
// file's and the command line's errors each speak their user's language.
struct EvaluatorConfigNames {
  // The label of a field, given its name in the proto ("max_batch").
  std::function<std::string(std::string_view field)> field;
  // A field set to a value, written as the user would write it (for hints
  // such as "use the torch backend").
  std::function<std::string(std::string_view field, std::string_view value)>
      setting;
};

// Names as a text-format config writes them: `prefix` + the proto's name
// ("evaluator." gives "evaluator.max_batch"); a setting is `backend:
// "torch"`. Thread-safe.
EvaluatorConfigNames ConfigFileNames(std::string_view prefix = "");

// Checks what can be checked without a net: precision is fp32, bf16 or
// fp16; eigen computes in fp32 only; the backend is auto, eigen or torch;
// eigen runs on the cpu device only; the integer fields lie in their ranges
// (above). The first error found, in that order, as "<field label>:
// <what is wrong>" (InvalidArgument); the device's name itself is the
// backend's to check (nn/torch_backend.h). Thread-safe.
absl::Status ValidateEvaluatorConfig(
    const proto::EvaluatorConfig& config,
    const EvaluatorConfigNames& names = ConfigFileNames());

// What backend auto runs on the CPU, given the eigen backend's kernel
// ("auto" = the one this CPU runs): "eigen" when that is a direct kernel
// (AVX2 or AVX-512), else "torch"; the same at every batch size, as
// measured (see the .cc). On a GPU device, auto is torch. Thread-safe.
std::string AutoCpuBackend(const std::string& eigen_kernel = "auto");

// The backend `config` names for `weights` (already read and checked):
// torch (LibTorch, config.device), eigen (CPU only, fp32 only) or auto
// (AutoCpuBackend on the CPU in fp32, torch on a GPU or in bf16/fp16).
// Errors: ValidateEvaluatorConfig's (field-named), then the backend's.
// Thread-safe.
absl::StatusOr<std::unique_ptr<Backend>> MakeBackend(
    const proto::EvaluatorConfig& config, const NetworkWeights& weights);

// The file a net name stands for in `game`: "auto" (kAutoNet) is the game's
// bundled net (FindBundledNet; NotFound names the paths tried), anything
// else is returned unchanged ("random" too). Thread-safe.
absl::StatusOr<std::string> ResolveNet(const std::string& net,
                                       const Game& game);

// The evaluator of `net` for `game`:
//   - "random": uniform priors, value 0 (UniformEvaluator; no Stats());
//   - a weights file, or "auto" (resolved by ResolveNet): the net is read
//     and checked against the game, then served by MakeBackend's backend
//     behind a BatchingEvaluator (config.max_batch, max_wait_us,
//     cache_entries). The first time a process loads a given bundled net it
//     says which file on stderr: "volkhv: net auto: PATH (GAME, generation
//     N)".
// The config is checked first (ValidateEvaluatorConfig; errors name the
// field). Other errors name the file and what is wrong; for a bundled net
// they add that `--net random` plays without one. The evaluator is
// thread-safe and does not refer to `game`. Thread-safe.
absl::StatusOr<std::shared_ptr<Evaluator>> MakeEvaluator(
    const proto::EvaluatorConfig& config, const std::string& net,
    const Game& game);

// MakeEvaluator with `config` bound: a fresh evaluator (a fresh load of the
// net) on every call. Thread-safe, as is the factory it returns.
EvaluatorFactory MakeEvaluatorFactory(proto::EvaluatorConfig config);

// Loads each net once: a call naming a net (for a game of the same name)
// that `make` has made an evaluator of already gets that evaluator, as long
// as it is kept: every one (keep = 0) or the `keep` most recently asked for.
// One net serves every option of a game (nn/bundled_net.h), so the game's
// options do not enter the key. Errors are not kept (the next call tries
// again). The returned factory is thread-safe; it calls `make` under its
// lock, one load at a time.
EvaluatorFactory CachingEvaluatorFactory(EvaluatorFactory make, int keep = 0);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_EVALUATOR_FACTORY_H_
