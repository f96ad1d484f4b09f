#include "nn/nn_cache.h"

namespace volkhv::nn {

NnCache::NnCache(int capacity)
    : capacity_(capacity),
      per_shard_(capacity > 0 ? (capacity + kShards - 1) / kShards : 0) {}

bool NnCache::Lookup(uint64_t key, int num_moves, Evaluation* out) {
  if (per_shard_ == 0) return false;
  Shard& shard = shards_[key % kShards];
  std::lock_guard<std::mutex> lock(shard.mutex);
  auto it = shard.entries.find(key);
  if (it == shard.entries.end() ||
      static_cast<int>(it->second.priors.size()) != num_moves) {
    return false;
  }
  *out = it->second;
  return true;
}

void NnCache::Insert(uint64_t key, const Evaluation& evaluation) {
  if (per_shard_ == 0) return;
  Shard& shard = shards_[key % kShards];
  std::lock_guard<std::mutex> lock(shard.mutex);
  if (!shard.entries.emplace(key, evaluation).second) return;
  shard.order.push_back(key);
  while (static_cast<int>(shard.order.size()) > per_shard_) {
    shard.entries.erase(shard.order.front());
    shard.order.pop_front();
  }
}

}  // namespace volkhv::nn
