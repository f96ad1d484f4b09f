// A bounded cache of network evaluations keyed by Encoder::CacheKey.
#ifndef VOLKHV_NN_NN_CACHE_H_
#define VOLKHV_NN_NN_CACHE_H_

#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "nn/evaluator.h"

namespace volkhv::nn {

// Sharded; each shard evicts its oldest entry when full. Thread-safe.
class NnCache {
 public:
  explicit NnCache(int capacity);
  // Copies a hit into *out; the move count must match (a guard against key
  // collisions between different positions).
  bool Lookup(uint64_t key, int num_moves, Evaluation* out);
  void Insert(uint64_t key, const Evaluation& evaluation);
  int capacity() const { return capacity_; }

 private:
  static constexpr int kShards = 16;
  struct Shard {
    std::mutex mutex;
    std::unordered_map<uint64_t, Evaluation> entries;
    std::deque<uint64_t> order;
  };
  const int capacity_;
  const int per_shard_;
  Shard shards_[kShards];
};

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_NN_CACHE_H_
