// The search with several threads growing one tree (search_threads > 1):
// the tree's bookkeeping stays exact, every limit holds, evaluations really
// overlap, and the answers to tactical positions are those of one thread.
// scripts/fuzz.sh --thread-tests runs this suite under ThreadSanitizer.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/games/games.h"
#include "engine/search/search.h"
#include "engine/search/search_params.h"
#include "gtest/gtest.h"
#include "nn/evaluator.h"
#include "tests/fake_evaluator.h"
#include "tests/game_fixtures.h"
#include "tests/tree_checks.h"

namespace volkhv::search {
namespace {

using ::volkhv::testing::ExpectConsistentTree;
using ::volkhv::testing::FakeEvaluator;
using ::volkhv::testing::NewGame;
using ::volkhv::testing::ProverOf;
using ::volkhv::testing::Visits;

// A FakeEvaluator that takes a while per call and records how many calls
// ran at once. Thread-safe.
class SlowEvaluator final : public nn::Evaluator {
 public:
  explicit SlowEvaluator(std::chrono::microseconds delay) : delay_(delay) {}
  void Evaluate(std::span<const nn::EvalRequest> requests,
                std::span<nn::Evaluation> results) override {
    const int now = running_.fetch_add(1) + 1;
    int seen = most_at_once_.load();
    while (now > seen && !most_at_once_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(delay_);
    fake_.Evaluate(requests, results);
    running_.fetch_sub(1);
  }
  int most_at_once() const { return most_at_once_.load(); }
  int bad_requests() { return fake_.bad_requests(); }

 private:
  const std::chrono::microseconds delay_;
  FakeEvaluator fake_;
  std::atomic<int> running_{0};
  std::atomic<int> most_at_once_{0};
};

SearchParams Threads(int threads, bool gumbel = false) {
  SearchParams params;
  params.search_threads = threads;
  params.minibatch_size = 8;
  params.gumbel = gumbel;
  return params;
}

TEST(SearchThreadsTest, FourThreadsKeepTheTreeExactAndStopAtTheVisits) {
  for (const std::string game_name : {"tavreli", "tavlei9"}) {
    for (const bool gumbel : {false, true}) {
      SCOPED_TRACE(game_name + (gumbel ? " gumbel" : " puct"));
      auto state = NewGame(game_name)->NewInitialState();
      SlowEvaluator evaluator(std::chrono::microseconds(300));
      Search search(Threads(4, gumbel), &evaluator, ProverOf(*state), 7);
      ASSERT_TRUE(search.SetPosition(*state).ok());
      const SearchResult result = search.Run(Visits(1500));
      EXPECT_EQ(result.stop_reason, StopReason::kVisits);
      EXPECT_EQ(search.root()->n, 1500u);
      EXPECT_EQ(result.playouts, 1500u);
      ExpectConsistentTree(search.root());
      EXPECT_EQ(evaluator.bad_requests(), 0);
      // The threads evaluated their minibatches at the same time.
      EXPECT_GE(evaluator.most_at_once(), 2);
      uint32_t children = 0;
      for (const MoveInfo& info : result.moves) children += info.visits;
      EXPECT_EQ(children, 1499u);
    }
  }
}

TEST(SearchThreadsTest, FourThreadsStopAtTheNodeLimitAndKeepTheTree) {
  auto state = NewGame("tavreli")->NewInitialState();
  SlowEvaluator evaluator(std::chrono::microseconds(100));
  Search search(Threads(4), &evaluator, ProverOf(*state), 3);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.nodes = 700;
  SearchResult result = search.Run(limits);
  EXPECT_EQ(result.stop_reason, StopReason::kNodes);
  EXPECT_EQ(result.playouts, 700u);
  EXPECT_EQ(search.root()->n, 700u);
  // The next Run goes on from the kept tree, after a move too.
  result = search.Run(limits);
  EXPECT_EQ(result.playouts, 700u);
  EXPECT_EQ(search.root()->n, 1400u);
  ASSERT_TRUE(search.Advance(result.best_move).ok());
  const uint32_t kept = search.root()->n;
  result = search.Run(limits);
  EXPECT_EQ(search.root()->n, kept + 700u);
  ExpectConsistentTree(search.root());
  EXPECT_EQ(evaluator.bad_requests(), 0);
}

TEST(SearchThreadsTest, FourThreadsProveTheMatesOneThreadProves) {
  // Mates in two (3 plies), each with one first move that forces mate.
  for (const auto& [text, first] :
       std::vector<std::pair<std::string, std::string>>{
           {"8/1pr6/6R1/2pr5/8/2K3N1/8/3k4 w - - 0 1", "g6-f6"},
           {"1k6/4Rpr2/8/2K5/3N4/1pr4b1/2B5/7n w - - 0 1", "d4-c6"}}) {
    SCOPED_TRACE(text);
    auto game = MakeGame("tavreli");
    ASSERT_TRUE(game.ok());
    auto state = (*game)->NewStateFromText(text);
    ASSERT_TRUE(state.ok());
    nn::UniformEvaluator evaluator;
    Search search(Threads(4), &evaluator, ProverOf(**state), 1);
    ASSERT_TRUE(search.SetPosition(**state).ok());
    const SearchResult result = search.Run(Visits(200000));
    EXPECT_EQ(result.stop_reason, StopReason::kProven);
    EXPECT_EQ(result.root_proven, Proven::kWin);
    EXPECT_EQ(result.root_proven_plies, 3);
    auto expected = (*state)->ParseMove(first);
    ASSERT_TRUE(expected.ok());
    EXPECT_EQ(result.best_move, *expected);
    ExpectConsistentTree(search.root());
  }
}

TEST(SearchThreadsTest, TheStopFlagEndsAnInfiniteSearchOfFourThreads) {
  auto state = NewGame("tavlei9")->NewInitialState();
  SlowEvaluator evaluator(std::chrono::microseconds(200));
  Search search(Threads(4), &evaluator, ProverOf(*state), 5);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  std::atomic<bool> stop{false};
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
  });
  SearchLimits limits;
  limits.infinite = true;
  const SearchResult result = search.Run(limits, {}, &stop);
  stopper.join();
  EXPECT_EQ(result.stop_reason, StopReason::kStopped);
  EXPECT_GT(search.root()->n, 1u);
  ExpectConsistentTree(search.root());
}

TEST(SearchThreadsTest, TheMemoryCapHoldsWithFourThreads) {
  auto state = NewGame("tavreli")->NewInitialState();
  SlowEvaluator evaluator(std::chrono::microseconds(50));
  SearchParams params = Threads(4);
  params.ram_limit_mb = 0.25;
  Search search(params, &evaluator, ProverOf(*state), 9);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  const SearchResult result = search.Run(Visits(1000000));
  EXPECT_EQ(result.stop_reason, StopReason::kMemory);
  EXPECT_LE(static_cast<double>(search.tree_bytes()), 0.25 * 1024 * 1024);
  ExpectConsistentTree(search.root());
}

TEST(SearchThreadsTest, ProgressIsReportedOnTheCallersThread) {
  auto state = NewGame("tavreli")->NewInitialState();
  SlowEvaluator evaluator(std::chrono::microseconds(200));
  Search search(Threads(3), &evaluator, ProverOf(*state), 2);
  ASSERT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits = Visits(600);
  limits.progress_interval_ms = 1;
  const std::thread::id caller = std::this_thread::get_id();
  int reports = 0;
  bool elsewhere = false;
  search.Run(limits, [&](const SearchResult& snapshot) {
    ++reports;
    elsewhere |= std::this_thread::get_id() != caller;
    EXPECT_LE(snapshot.playouts, 600u);
  });
  EXPECT_GT(reports, 0);
  EXPECT_FALSE(elsewhere);
}

}  // namespace
}  // namespace volkhv::search
