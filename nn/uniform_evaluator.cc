#include "nn/evaluator.h"

namespace volkhv::nn {

void UniformEvaluator::Evaluate(std::span<const EvalRequest> requests,
                                std::span<Evaluation> results) {
  for (size_t i = 0; i < requests.size(); ++i) {
    const int n = requests[i].legal_moves->size();
    results[i].priors.assign(n, 1.0f / n);
    results[i].wdl[0] = results[i].wdl[1] = results[i].wdl[2] = 1.0f / 3;
    results[i].moves_left = Evaluation::kNoMovesLeft;
  }
}

}  // namespace volkhv::nn
