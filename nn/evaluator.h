// What the search asks of the network: priors over the legal moves, a WDL
// value and, where the net has the head, the plies left for positions. The
// search knows nothing else of networks. Also the one type of factory through
// which libraries get evaluators.
#ifndef VOLKHV_NN_EVALUATOR_H_
#define VOLKHV_NN_EVALUATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"

namespace volkhv::nn {

struct Evaluation {
  // One prior per legal move, in the order of the request's moves; they sum
  // to 1 (moves that share a policy index split its probability).
  std::vector<float> priors;
  // Win, draw, loss for the side to move; sums to 1.
  float wdl[3] = {0, 1, 0};
  // The net's expected plies from the position to the game's end (>= 0);
  // kNoMovesLeft when the evaluator has no moves-left head (the uniform
  // evaluator, nets without the head).
  static constexpr float kNoMovesLeft = -1.0f;
  float moves_left = kNoMovesLeft;
  bool has_moves_left() const { return moves_left >= 0; }
};

struct EvalRequest {
  const GameState* state = nullptr;
  const MoveList* legal_moves = nullptr;  // non-empty
};

// What an evaluator has done since it was made (counters only grow): the
// network calls behind a batching evaluator (nn/batching_evaluator.h).
struct EvaluatorStats {
  int64_t batches = 0;    // network calls
  int64_t positions = 0;  // sent to the network (cache misses)
  int64_t cache_hits = 0;
  int64_t max_batch = 0;       // the largest batch so far
  double backend_seconds = 0;  // inside the network (wall time)
  double AverageBatch() const {
    return batches ? static_cast<double>(positions) / batches : 0;
  }
};

// Thread-safe: any number of threads may call Evaluate and Stats
// concurrently; a batching implementation merges their requests into
// network batches. The pointed-to states and move lists must stay valid
// until Evaluate returns.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Fills results[i] for requests[i]; blocks until all are done.
  virtual void Evaluate(std::span<const EvalRequest> requests,
                        std::span<Evaluation> results) = 0;
  // A snapshot of the evaluator's counters; nullopt (this default) for an
  // evaluator that keeps none (no network behind it, e.g. UniformEvaluator).
  // Thread-safe, also while Evaluate runs on other threads.
  virtual std::optional<EvaluatorStats> Stats() const { return std::nullopt; }
};

// Makes the evaluator of `net` for `game`: the one type of factory every
// library that needs evaluators takes (the protocol engines, player specs,
// the generation loop, the web API). What `net` may name is the factory's to
// say; nn::MakeEvaluatorFactory (nn/evaluator_factory.h) takes a weights
// file, "auto" (the game's bundled net) or "random". The evaluator must be
// thread-safe and must not refer to `game` (which may go first); it may be
// shared (a caching factory hands one evaluator to every caller naming its
// net). Errors name the net or the file at fault. Whether a factory may be
// called from several threads at once is its maker's to say
// (nn::MakeEvaluatorFactory's and nn::CachingEvaluatorFactory's may).
using EvaluatorFactory =
    std::function<absl::StatusOr<std::shared_ptr<Evaluator>>(
        const std::string& net, const Game& game)>;

// Uniform priors and an uninformative value (W = D = L = 1/3): the search is
// testable without a network (`--net random`). Thread-safe.
class UniformEvaluator final : public Evaluator {
 public:
  void Evaluate(std::span<const EvalRequest> requests,
                std::span<Evaluation> results) override;
};

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_EVALUATOR_H_
