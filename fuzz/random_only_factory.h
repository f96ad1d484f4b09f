// The evaluator factory of the protocol harnesses: `--net random` only, so
// that no input makes a harness read a file.
#ifndef VOLKHV_FUZZ_RANDOM_ONLY_FACTORY_H_
#define VOLKHV_FUZZ_RANDOM_ONLY_FACTORY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "nn/evaluator.h"

namespace volkhv::fuzz {

inline nn::EvaluatorFactory RandomOnlyFactory() {
  return [](const std::string& net,
            const Game&) -> absl::StatusOr<std::shared_ptr<nn::Evaluator>> {
    if (net != "random") {
      return absl::NotFoundError("the fuzz harness has only --net random");
    }
    return std::make_shared<nn::UniformEvaluator>();
  };
}

}  // namespace volkhv::fuzz

#endif  // VOLKHV_FUZZ_RANDOM_ONLY_FACTORY_H_
