#include "training/prefetcher.h"

#include <chrono>
#include <string>
#include <system_error>
#include <utility>

namespace volkhv::training {

Prefetcher::Prefetcher(FillFunction fill, int64_t first_step, int threads,
                       int depth)
    : fill_(std::move(fill)),
      // One buffer is held by the optimiser; the others are built ahead.
      depth_(depth + 1),
      slots_(depth + 1),
      ready_step_(depth + 1, -1),
      slot_status_(depth + 1),
      next_to_claim_(first_step),
      released_(first_step),
      next_to_hand_(first_step) {
  for (int i = 0; i < threads; ++i) {
    try {
      threads_.emplace_back([this] { Work(); });
    } catch (const std::system_error& e) {
      // Fewer loader threads build the same batches; with none, Next says
      // why.
      if (threads_.empty()) {
        start_error_ = absl::ResourceExhaustedError(
            std::string("cannot start a loader thread: ") + e.what());
      }
      break;
    }
  }
}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void Prefetcher::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(
        lock, [this] { return stop_ || next_to_claim_ < released_ + depth_; });
    if (stop_) return;
    const int64_t step = next_to_claim_++;
    const int slot = static_cast<int>(step % depth_);
    lock.unlock();
    absl::Status status = fill_(step, &slots_[slot]);
    slots_[slot].step = step;
    lock.lock();
    slot_status_[slot] = std::move(status);
    ready_step_[slot] = step;
    changed_.notify_all();
  }
}

absl::StatusOr<const Batch*> Prefetcher::Next() {
  if (!start_error_.ok()) return start_error_;
  std::unique_lock<std::mutex> lock(mutex_);
  if (holding_) {
    released_ = next_to_hand_;
    holding_ = false;
    changed_.notify_all();
  }
  const int64_t step = next_to_hand_;
  const int slot = static_cast<int>(step % depth_);
  if (ready_step_[slot] != step) {
    const auto start = std::chrono::steady_clock::now();
    changed_.wait(lock, [&] { return ready_step_[slot] == step; });
    wait_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }
  if (!slot_status_[slot].ok()) return slot_status_[slot];
  ++next_to_hand_;
  holding_ = true;
  return &slots_[slot];
}

}  // namespace volkhv::training
