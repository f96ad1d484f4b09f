// The batching evaluator: merges the requests of many concurrent searches
// into network batches, with an NN cache in front. Requests are encoded by
// the calling threads straight into the pending batch's input buffer; one
// worker thread runs the backend and hands results back.
#ifndef VOLKHV_NN_BATCHING_EVALUATOR_H_
#define VOLKHV_NN_BATCHING_EVALUATOR_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/game/encoder.h"
#include "nn/backend.h"
#include "nn/evaluator.h"
#include "nn/nn_cache.h"

namespace volkhv::nn {

// A batch goes to the backend once it holds min(max_batch, the backend's
// preferred_batch) positions, or when its first position has waited
// max_wait_us (max_batch is capped by the backend's max_batch).
struct BatchingOptions {
  int max_batch = 256;          // never more positions per backend call
  int max_wait_us = 300;        // how long a partial batch waits for more
  int cache_entries = 1 << 18;  // 0 disables the cache
};

class BatchingEvaluator final : public Evaluator {
 public:
  // Starts the worker thread. The encoder must match the backend's shapes.
  BatchingEvaluator(std::unique_ptr<Backend> backend,
                    std::unique_ptr<Encoder> encoder,
                    const BatchingOptions& options);
  // Stops the worker; no Evaluate may be running.
  ~BatchingEvaluator() override;

  // Thread-safe; blocks until every request is answered.
  void Evaluate(std::span<const EvalRequest> requests,
                std::span<Evaluation> results) override;

  // Always set: batches and positions are the backend's calls and the
  // positions sent to it, backend_seconds the time inside Backend::Compute,
  // cache_hits the requests the NN cache answered. Thread-safe snapshot.
  std::optional<EvaluatorStats> Stats() const override;
  // Thread-safe.
  const Encoder& encoder() const { return *encoder_; }

 private:
  struct Waiter;
  struct Slot {
    Waiter* waiter;
    Evaluation* result;
    uint64_t cache_key;
    std::vector<int> policy_indices;  // one per legal move
  };
  struct Batch {
    std::vector<float> input;
    std::vector<Slot> slots;
    int filled = 0;  // slots whose input is written
    std::chrono::steady_clock::time_point first_request;
  };

  void WorkerLoop();
  // `moves_left` is null when the backend has no moves-left head.
  void Deliver(Batch& batch, const float* policy, const float* wdl,
               const float* moves_left);
  bool ReadyLocked(std::chrono::steady_clock::time_point now) const;

  const std::unique_ptr<Backend> backend_;
  const std::unique_ptr<Encoder> encoder_;
  const BatchingOptions options_;
  // Batches of this many run at once: min(max_batch, preferred_batch).
  const int ready_batch_;
  const int input_size_;
  const int policy_size_;
  NnCache cache_;

  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable slot_filled_;
  std::unique_ptr<Batch> pending_;  // being filled by callers
  std::unique_ptr<Batch> spare_;    // reused by the worker
  EvaluatorStats stats_;
  bool stopping_ = false;
  std::thread worker_;
};

// Softmax of `logits` over the legal moves' indices. Moves sharing an index
// split its probability equally. Thread-safe (pure).
void LegalPriors(const float* logits, const std::vector<int>& indices,
                 std::vector<float>* priors);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_BATCHING_EVALUATOR_H_
