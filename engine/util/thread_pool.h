// A fixed set of threads that runs one fork-join job at a time.
#ifndef VOLKHV_ENGINE_UTIL_THREAD_POOL_H_
#define VOLKHV_ENGINE_UTIL_THREAD_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace volkhv {

// Runs task(context, i) for i in [0, tasks) on up to size() threads, task 0
// on the caller's thread, and returns when every task has run (OpenMP's
// parallel-for without OpenMP). Run is called by one thread at a time (not
// thread-safe); the pool's own threads wait between jobs.
class ThreadPool {
 public:
  // Starts threads - 1 threads (the caller is the last). If the system
  // refuses a thread, the pool keeps those it has (size() says how many).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run tasks, the caller's included (at least 1).
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(context, i) for every i < tasks (tasks <= size()); returns
  // when all ran. Task i runs on thread i (0: the caller).
  void Run(int tasks, void (*task)(void*, int), void* context);

 private:
  void Loop(int index);

  std::mutex mutex_;
  std::condition_variable start_, done_;
  uint64_t generation_ = 0;
  int tasks_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  void (*task_)(void*, int) = nullptr;
  void* context_ = nullptr;
  std::vector<std::thread> workers_;
};

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_UTIL_THREAD_POOL_H_
