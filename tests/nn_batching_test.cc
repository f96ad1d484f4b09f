// The batching evaluator: concurrent callers get exactly what one-at-a-time
// evaluation gives; batches form; the cache answers repeats; priors over
// legal moves are a proper distribution with shared indices split; Stats()
// counts what was evaluated.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "engine/games/games.h"
#include "gtest/gtest.h"
#include "nn/batching_evaluator.h"
#include "tests/game_fixtures.h"

namespace volkhv::nn {
namespace {

using ::volkhv::testing::NewGame;
using ::volkhv::testing::RandomPositions;

constexpr int kPolicySize = 4096;

// Encodes the position hash into 8 floats; moves map to (from*64+to) % 4096,
// so stack splits (same from/to, other count) share an index.
class HashEncoder final : public Encoder {
 public:
  int FormatVersion() const override { return 1; }
  InputShape Shape() const override { return {1, 1, 8}; }
  int PolicySize() const override { return kPolicySize; }
  int PolicyChannels() const override { return kPolicySize / 8; }
  void Encode(const GameState& state, float* out) const override {
    const uint64_t h = state.Hash();
    for (int j = 0; j < 8; ++j) out[j] = ((h >> (8 * j)) & 0xFF) / 255.0f;
  }
  int PolicyIndex(const GameState&, Move m) const override {
    return (m.from * 64 + m.to) % kPolicySize;
  }
  uint64_t CacheKey(const GameState& state) const override {
    return state.Hash();
  }
};

// A deterministic function of each position's input; records batch sizes.
class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(int sleep_us, std::vector<int>* batch_sizes)
      : sleep_us_(sleep_us), batch_sizes_(batch_sizes) {
    info_ = {"fake", {1, 1, 8}, kPolicySize, 64, 1024};
  }
  const BackendInfo& Info() const override { return info_; }
  void Compute(int batch, const float* input, float* policy, float* wdl,
               float* /*moves_left*/) override {
    if (batch_sizes_) batch_sizes_->push_back(batch);
    for (int b = 0; b < batch; ++b) {
      const float* x = input + 8 * b;
      float sum = 0;
      for (int j = 0; j < 8; ++j) sum += x[j] * (j + 1);
      for (int p = 0; p < kPolicySize; ++p) {
        policy[b * kPolicySize + p] = std::sin(p * 0.37f + sum);
      }
      float e[3] = {std::exp(x[0]), std::exp(x[1]), std::exp(x[2])};
      const float total = e[0] + e[1] + e[2];
      for (int k = 0; k < 3; ++k) wdl[3 * b + k] = e[k] / total;
    }
    if (sleep_us_)
      std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
  }

 private:
  int sleep_us_;
  std::vector<int>* batch_sizes_;
  BackendInfo info_;
};

// Positions from random Tavreli games (towers, so shared indices occur).
std::vector<std::unique_ptr<GameState>> TavreliPositions(int count,
                                                         uint64_t seed) {
  return RandomPositions(*NewGame("tavreli"), count, seed, /*keep_one_in=*/1,
                         /*max_plies=*/120);
}

Evaluation Direct(const GameState& state, const MoveList& moves) {
  HashEncoder encoder;
  FakeBackend backend(0, nullptr);
  float input[8];
  encoder.Encode(state, input);
  std::vector<float> policy(kPolicySize);
  Evaluation e;
  backend.Compute(1, input, policy.data(), e.wdl, nullptr);
  std::vector<int> indices;
  for (Move m : moves) indices.push_back(encoder.PolicyIndex(state, m));
  LegalPriors(policy.data(), indices, &e.priors);
  return e;
}

TEST(LegalPriorsTest, SumsToOneAndSplitsSharedIndices) {
  const float logits[4] = {0.0f, 1.0f, 2.0f, 3.0f};
  std::vector<float> priors;
  LegalPriors(logits, {1, 3, 3, 0}, &priors);
  const double z = std::exp(1.0) + std::exp(3.0) + std::exp(0.0);
  EXPECT_NEAR(priors[0], std::exp(1.0) / z, 1e-6);
  EXPECT_NEAR(priors[1], std::exp(3.0) / z / 2, 1e-6);
  EXPECT_EQ(priors[1], priors[2]);
  EXPECT_NEAR(priors[3], 1.0 / z, 1e-6);
  EXPECT_NEAR(priors[0] + priors[1] + priors[2] + priors[3], 1.0, 1e-6);
}

TEST(BatchingEvaluatorTest, ConcurrentCallersGetOneAtATimeResults) {
  const auto states = TavreliPositions(400, 7);
  std::vector<MoveList> moves(states.size());
  for (size_t i = 0; i < states.size(); ++i) states[i]->LegalMoves(&moves[i]);
  std::vector<int> batch_sizes;
  BatchingEvaluator evaluator(std::make_unique<FakeBackend>(200, &batch_sizes),
                              std::make_unique<HashEncoder>(), {64, 2000, 0});
  constexpr int kThreads = 16;
  std::vector<Evaluation> results(states.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread sends its share in minibatches of up to 5.
      for (size_t i = t; i < states.size(); i += 5 * kThreads) {
        std::vector<EvalRequest> requests;
        for (size_t j = i; j < std::min(states.size(), i + 5 * kThreads);
             j += kThreads) {
          requests.push_back({states[j].get(), &moves[j]});
        }
        std::vector<Evaluation> out(requests.size());
        evaluator.Evaluate(requests, out);
        for (size_t r = 0; r < requests.size(); ++r) {
          results[i + r * kThreads] = out[r];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  int shared_positions = 0;
  for (size_t i = 0; i < states.size(); ++i) {
    const Evaluation expected = Direct(*states[i], moves[i]);
    ASSERT_EQ(results[i].priors, expected.priors) << i;
    EXPECT_EQ(results[i].wdl[0], expected.wdl[0]);
    EXPECT_EQ(results[i].wdl[2], expected.wdl[2]);
    std::vector<float> sorted(results[i].priors);
    shared_positions +=
        std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  }
  const std::optional<EvaluatorStats> stats = evaluator.Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->positions, 400);
  EXPECT_GT(stats->AverageBatch(), 1.0);
  EXPECT_GT(shared_positions, 0);  // the split path was exercised
}

TEST(BatchingEvaluatorTest, SixtyFourProducersFillBatches) {
  // A full second's wait: even on a loaded machine every producer is back
  // before a partial batch leaves.
  const auto states = TavreliPositions(64, 11);
  BatchingEvaluator evaluator(std::make_unique<FakeBackend>(3000, nullptr),
                              std::make_unique<HashEncoder>(),
                              {64, 1000000, 0});
  std::vector<std::thread> threads;
  for (int t = 0; t < 64; ++t) {
    threads.emplace_back([&, t] {
      MoveList moves;
      states[t]->LegalMoves(&moves);
      for (int round = 0; round < 20; ++round) {
        EvalRequest request{states[t].get(), &moves};
        Evaluation out;
        evaluator.Evaluate({&request, 1}, {&out, 1});
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const std::optional<EvaluatorStats> stats = evaluator.Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->positions, 64 * 20);
  EXPECT_GE(stats->AverageBatch(), 48.0);
}

TEST(BatchingEvaluatorTest, CacheAnswersRepeats) {
  const auto states = TavreliPositions(3, 5);
  BatchingEvaluator evaluator(std::make_unique<FakeBackend>(0, nullptr),
                              std::make_unique<HashEncoder>(), {8, 100, 1024});
  MoveList moves;
  states[0]->LegalMoves(&moves);
  EvalRequest request{states[0].get(), &moves};
  Evaluation first, second;
  evaluator.Evaluate({&request, 1}, {&first, 1});
  evaluator.Evaluate({&request, 1}, {&second, 1});
  EXPECT_EQ(first.priors, second.priors);
  const std::optional<EvaluatorStats> stats = evaluator.Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->positions, 1);
  EXPECT_EQ(stats->cache_hits, 1);
}

// Evaluator::Stats through the interface: a batching evaluator counts what
// it has evaluated (from zero, growing call by call); the uniform evaluator
// keeps no statistics.
TEST(EvaluatorStatsTest, BatchingCountsPositionsUniformHasNone) {
  const auto states = TavreliPositions(5, 3);
  std::vector<int> batch_sizes;
  BatchingEvaluator batching(std::make_unique<FakeBackend>(0, &batch_sizes),
                             std::make_unique<HashEncoder>(), {8, 100, 0});
  const Evaluator& as_evaluator = batching;
  std::optional<EvaluatorStats> stats = as_evaluator.Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->positions, 0);
  EXPECT_EQ(stats->batches, 0);
  std::vector<MoveList> moves(states.size());
  std::vector<EvalRequest> requests;
  for (size_t i = 0; i < states.size(); ++i) {
    states[i]->LegalMoves(&moves[i]);
    requests.push_back({states[i].get(), &moves[i]});
  }
  std::vector<Evaluation> out(requests.size());
  batching.Evaluate({requests.data(), 2}, {out.data(), 2});
  stats = as_evaluator.Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->positions, 2);
  batching.Evaluate({requests.data() + 2, 3}, {out.data() + 2, 3});
  stats = as_evaluator.Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->positions, 5);
  EXPECT_EQ(stats->cache_hits, 0);  // the cache is off
  EXPECT_EQ(stats->batches, static_cast<int64_t>(batch_sizes.size()));
  EXPECT_EQ(stats->max_batch,
            *std::max_element(batch_sizes.begin(), batch_sizes.end()));

  UniformEvaluator uniform;
  uniform.Evaluate({requests.data(), 5}, {out.data(), 5});
  EXPECT_FALSE(static_cast<const Evaluator&>(uniform).Stats().has_value());
}

TEST(NnCacheTest, EvictsOldestAndChecksMoveCount) {
  NnCache cache(16);  // one entry per shard
  Evaluation e;
  e.priors = {0.5f, 0.5f};
  cache.Insert(1, e);
  Evaluation out;
  EXPECT_TRUE(cache.Lookup(1, 2, &out));
  EXPECT_FALSE(cache.Lookup(1, 3, &out));
  cache.Insert(17, e);  // same shard as 1: evicts it
  EXPECT_FALSE(cache.Lookup(1, 2, &out));
  EXPECT_TRUE(cache.Lookup(17, 2, &out));
}

TEST(UniformEvaluatorTest, UniformPriorsAndZeroValue) {
  const auto states = TavreliPositions(1, 3);
  MoveList moves;
  states[0]->LegalMoves(&moves);
  UniformEvaluator uniform;
  EvalRequest request{states[0].get(), &moves};
  Evaluation out;
  uniform.Evaluate({&request, 1}, {&out, 1});
  ASSERT_EQ(static_cast<int>(out.priors.size()), moves.size());
  EXPECT_FLOAT_EQ(out.priors[0], 1.0f / moves.size());
  EXPECT_FLOAT_EQ(out.wdl[0] - out.wdl[2], 0.0f);
}

}  // namespace
}  // namespace volkhv::nn
