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
#include "nn/evaluator.h"

namespace volkhv::cli {

// --net, --backend, --device, --threads, --max-batch, --max-wait-us, --cache.
std::vector<OptionSpec> EvaluatorOptionSpecs();

struct EvaluatorSettings {
  std::string net = "random";  // a weights file, or "random"
  std::string backend = "auto";
  std::string device = "cpu";
  int threads = 0;  // 0: one per core
  int max_batch = 256;
  int max_wait_us = 300;
  int cache_entries = 1 << 18;
};

absl::StatusOr<EvaluatorSettings> EvaluatorSettingsFromCommandLine(
    const CommandLine& cl);

// `random`: uniform priors, value 0 (nn::UniformEvaluator). A file: the net
// is read and checked against the game, then served by its backend behind a
// batching evaluator with an NN cache. The result is thread-safe (shared by
// every search of the process). Errors name the file and what is wrong.
absl::StatusOr<std::unique_ptr<nn::Evaluator>> MakeEvaluator(
    const EvaluatorSettings& settings, const Game& game);

}  // namespace volkhv::cli

#endif  // VOLKHV_CLI_EVALUATOR_SETUP_H_
