#include "engine/util/thread_pool.h"

#include <system_error>

namespace volkhv {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) {
    try {
      workers_.emplace_back([this, i] { Loop(i); });
    } catch (const std::system_error&) {
      break;  // fewer threads (the caller's at least) share the work
    }
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Run(int tasks, void (*task)(void*, int), void* context) {
  if (tasks > 1) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      context_ = context;
      tasks_ = tasks;
      pending_ = tasks - 1;
      ++generation_;
    }
    start_.notify_all();
  }
  if (tasks > 0) task(context, 0);
  if (tasks > 1) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
  }
}

void ThreadPool::Loop(int index) {
  uint64_t seen = 0;
  for (;;) {
    void (*task)(void*, int);
    void* context;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= tasks_) continue;
      task = task_;
      context = context_;
    }
    task(context, index);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace volkhv
