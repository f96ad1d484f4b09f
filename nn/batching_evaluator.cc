#include "nn/batching_evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace volkhv::nn {

struct BatchingEvaluator::Waiter {
  std::mutex mutex;
  std::condition_variable done;
  int remaining = 0;
};

void LegalPriors(const float* logits, const std::vector<int>& indices,
                 std::vector<float>* priors) {
  const int n = static_cast<int>(indices.size());
  priors->resize(n);
  float max_logit = -INFINITY;
  for (int index : indices) max_logit = std::max(max_logit, logits[index]);
  std::vector<int> sorted(indices);
  std::sort(sorted.begin(), sorted.end());
  const bool shared =
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  // Each distinct index counts once in the normaliser; moves sharing an index
  // split its probability.
  double total = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i == 0 || sorted[i] != sorted[i - 1]) {
      total += std::exp(logits[sorted[i]] - max_logit);
    }
  }
  for (int i = 0; i < n; ++i) {
    float share = 1;
    if (shared) {
      const auto range =
          std::equal_range(sorted.begin(), sorted.end(), indices[i]);
      share = static_cast<float>(range.second - range.first);
    }
    (*priors)[i] = static_cast<float>(std::exp(logits[indices[i]] - max_logit) /
                                      total / share);
  }
}

BatchingEvaluator::BatchingEvaluator(std::unique_ptr<Backend> backend,
                                     std::unique_ptr<Encoder> encoder,
                                     const BatchingOptions& options)
    : backend_(std::move(backend)),
      encoder_(std::move(encoder)),
      options_{std::clamp(options.max_batch, 1, backend_->Info().max_batch),
               options.max_wait_us, options.cache_entries},
      ready_batch_(
          std::clamp(backend_->Info().preferred_batch, 1, options_.max_batch)),
      input_size_(encoder_->Shape().Size()),
      policy_size_(encoder_->PolicySize()),
      cache_(options.cache_entries) {
  pending_ = std::make_unique<Batch>();
  pending_->input.resize(static_cast<size_t>(options_.max_batch) * input_size_);
  worker_ = std::thread([this] { WorkerLoop(); });
}

BatchingEvaluator::~BatchingEvaluator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  worker_.join();
}

void BatchingEvaluator::Evaluate(std::span<const EvalRequest> requests,
                                 std::span<Evaluation> results) {
  Waiter waiter;
  int hits = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const GameState& state = *requests[i].state;
    const MoveList& moves = *requests[i].legal_moves;
    const uint64_t key = encoder_->CacheKey(state);
    if (cache_.Lookup(key, moves.size(), &results[i])) {
      ++hits;
      continue;
    }
    std::vector<int> indices(moves.size());
    for (int m = 0; m < moves.size(); ++m) {
      indices[m] = encoder_->PolicyIndex(state, moves[m]);
    }
    float* input;
    Batch* batch;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      slot_filled_.wait(lock, [this] {
        return static_cast<int>(pending_->slots.size()) < options_.max_batch;
      });
      batch = pending_.get();
      if (batch->slots.empty()) {
        batch->first_request = std::chrono::steady_clock::now();
      }
      input = batch->input.data() + batch->slots.size() * input_size_;
      batch->slots.push_back({&waiter, &results[i], key, std::move(indices)});
    }
    {
      std::lock_guard<std::mutex> lock(waiter.mutex);
      ++waiter.remaining;
    }
    encoder_->Encode(state, input);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++batch->filled;
    }
    work_ready_.notify_one();
  }
  if (hits) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.cache_hits += hits;
  }
  std::unique_lock<std::mutex> lock(waiter.mutex);
  waiter.done.wait(lock, [&waiter] { return waiter.remaining == 0; });
}

bool BatchingEvaluator::ReadyLocked(
    std::chrono::steady_clock::time_point now) const {
  const int size = static_cast<int>(pending_->slots.size());
  if (size == 0 || pending_->filled < size) return false;
  return size >= ready_batch_ ||
         now - pending_->first_request >=
             std::chrono::microseconds(options_.max_wait_us);
}

void BatchingEvaluator::WorkerLoop() {
  std::vector<float> policy(static_cast<size_t>(options_.max_batch) *
                            policy_size_);
  std::vector<float> wdl(static_cast<size_t>(options_.max_batch) * 3);
  const bool has_moves_left = backend_->Info().moves_left;
  std::vector<float> moves_left(
      has_moves_left ? static_cast<size_t>(options_.max_batch) : 0);
  float* const moves_left_out = has_moves_left ? moves_left.data() : nullptr;
  for (;;) {
    std::unique_ptr<Batch> batch;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      for (;;) {
        const auto now = std::chrono::steady_clock::now();
        if (ReadyLocked(now)) break;
        if (stopping_ && pending_->slots.empty()) return;
        if (!pending_->slots.empty() &&
            pending_->filled == static_cast<int>(pending_->slots.size())) {
          work_ready_.wait_until(
              lock, pending_->first_request +
                        std::chrono::microseconds(options_.max_wait_us));
        } else {
          work_ready_.wait(lock);
        }
      }
      batch = std::move(pending_);
      if (spare_) {
        pending_ = std::move(spare_);
      } else {
        pending_ = std::make_unique<Batch>();
        pending_->input.resize(batch->input.size());
      }
      pending_->slots.clear();
      pending_->filled = 0;
    }
    slot_filled_.notify_all();
    const int n = static_cast<int>(batch->slots.size());
    const auto start = std::chrono::steady_clock::now();
    try {
      backend_->Compute(n, batch->input.data(), policy.data(), wdl.data(),
                        moves_left_out);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "volkhv: the network backend failed: %s\n",
                   e.what());
      std::exit(1);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    {
      // Before delivering, so a caller that got its answer sees it counted.
      std::lock_guard<std::mutex> lock(mutex_);
      stats_.batches += 1;
      stats_.positions += n;
      stats_.max_batch = std::max<int64_t>(stats_.max_batch, n);
      stats_.backend_seconds += seconds;
    }
    Deliver(*batch, policy.data(), wdl.data(), moves_left_out);
    std::lock_guard<std::mutex> lock(mutex_);
    spare_ = std::move(batch);
  }
}

void BatchingEvaluator::Deliver(Batch& batch, const float* policy,
                                const float* wdl, const float* moves_left) {
  for (size_t i = 0; i < batch.slots.size(); ++i) {
    Slot& slot = batch.slots[i];
    LegalPriors(policy + i * policy_size_, slot.policy_indices,
                &slot.result->priors);
    std::copy(wdl + 3 * i, wdl + 3 * i + 3, slot.result->wdl);
    slot.result->moves_left =
        moves_left != nullptr ? moves_left[i] : Evaluation::kNoMovesLeft;
    cache_.Insert(slot.cache_key, *slot.result);
    Waiter& waiter = *slot.waiter;
    std::lock_guard<std::mutex> lock(waiter.mutex);
    if (--waiter.remaining == 0) waiter.done.notify_all();
  }
}

std::optional<EvaluatorStats> BatchingEvaluator::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace volkhv::nn
