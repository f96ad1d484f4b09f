// The options every command that evaluates positions shares (--net,
// --backend, --device, ...) and the EvaluatorConfig they spell; the
// evaluator itself comes from nn::MakeEvaluator (nn/evaluator_factory.h).
#ifndef VOLKHV_CLI_EVALUATOR_SETUP_H_
#define VOLKHV_CLI_EVALUATOR_SETUP_H_

#include <vector>

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "proto/loop_config.pb.h"

namespace volkhv::cli {

// --net, --backend, --device, --precision, --threads, --max-batch,
// --max-wait-us, --cache. The defaults are EvaluatorConfig's, except
// --threads: 0 (one per core) where a config's default is 1. --net (a
// weights file, "auto" or "random") is read with CommandLine::Get.
std::vector<OptionSpec> EvaluatorOptionSpecs();

// The EvaluatorConfig of the options above but --net, checked as
// nn::ValidateEvaluatorConfig checks it, with errors that name the option
// ("option '--precision': ..."); the integer options' errors are
// CommandLine::GetInt's, after the others.
absl::StatusOr<proto::EvaluatorConfig> EvaluatorConfigFromCommandLine(
    const CommandLine& cl);

}  // namespace volkhv::cli

#endif  // VOLKHV_CLI_EVALUATOR_SETUP_H_
