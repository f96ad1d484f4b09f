// The time manager (engine/search/time_manager.h) and the one Q-to-centipawn
// mapping (engine/search/centipawns.h).
#include "engine/search/time_manager.h"

#include <cstdint>
#include <limits>

#include "engine/search/centipawns.h"
#include "gtest/gtest.h"

namespace volkhv::search {
namespace {

TEST(TimeManagerTest, NothingGivenSearchesUntilStopped) {
  const SearchLimits limits = SearchLimitsFor(TimeControl(), 0);
  EXPECT_TRUE(limits.infinite);
  EXPECT_EQ(limits.time_ms, 0);
  EXPECT_EQ(limits.nodes, 0u);
  EXPECT_EQ(limits.visits, 0u);
}

TEST(TimeManagerTest, NodesVisitsAndMovetimePassThrough) {
  TimeControl control;
  control.nodes = 500;
  control.visits = 800;
  control.movetime_ms = 1234;
  const SearchLimits limits = SearchLimitsFor(control, 1);
  EXPECT_FALSE(limits.infinite);
  EXPECT_EQ(limits.nodes, 500u);
  EXPECT_EQ(limits.visits, 800u);
  EXPECT_EQ(limits.time_ms, 1234);

  TimeControl nodes_only;
  nodes_only.nodes = 7;
  EXPECT_FALSE(SearchLimitsFor(nodes_only, 0).infinite);
  EXPECT_EQ(SearchLimitsFor(nodes_only, 0).time_ms, 0);
}

// Issue 19: `go depth N` and `go mate N` limit a search on their own.
TEST(TimeManagerTest, DepthAndMateLimitTheSearch) {
  TimeControl depth;
  depth.depth = 7;
  EXPECT_FALSE(SearchLimitsFor(depth, 0).infinite);
  EXPECT_EQ(SearchLimitsFor(depth, 0).depth, 7);
  TimeControl mate;
  mate.mate = 3;
  EXPECT_FALSE(SearchLimitsFor(mate, 1).infinite);
  EXPECT_EQ(SearchLimitsFor(mate, 1).mate_plies, 5);
  EXPECT_EQ(SearchLimitsFor(TimeControl(), 0).mate_plies, 0);
}

TEST(TimeManagerTest, InfiniteWinsOverEveryLimit) {
  TimeControl control;
  control.visits = 100;
  control.infinite = true;
  EXPECT_TRUE(SearchLimitsFor(control, 0).infinite);
}

TEST(TimeManagerTest, TheClockOfTheSideToMoveGivesAShare) {
  TimeControl control;
  control.time_left_ms[0] = 60000;
  control.time_left_ms[1] = 30000;
  control.increment_ms[0] = 1000;
  // 60000 / 30 + 1000 * 3 / 4 for the first player; 30000 / 30 for the
  // second, who has no increment.
  EXPECT_EQ(SearchLimitsFor(control, 0).time_ms, 2750);
  EXPECT_EQ(SearchLimitsFor(control, 1).time_ms, 1000);
  EXPECT_FALSE(SearchLimitsFor(control, 0).infinite);
  // Moves to go: the time left over those moves plus one.
  control.moves_to_go = 9;
  EXPECT_EQ(SearchLimitsFor(control, 1).time_ms, 3000);
  // A fixed time per move beats the clock.
  control.movetime_ms = 50;
  EXPECT_EQ(SearchLimitsFor(control, 0).time_ms, 50);
}

TEST(TimeManagerTest, AClockOfTheOtherSideAloneLimitsNothing) {
  TimeControl control;
  control.time_left_ms[1] = 30000;
  const SearchLimits limits = SearchLimitsFor(control, 0);
  EXPECT_EQ(limits.time_ms, 0);
  EXPECT_TRUE(limits.infinite);
}

TEST(TimeManagerTest, TheBudgetKeepsASafetyMarginAndAtLeastOneMs) {
  // 1000 / 30 + 3750 would overrun the clock: at most 1000 - 100.
  EXPECT_EQ(ClockBudgetMs(1000, 5000, std::nullopt), 900);
  // A short clock keeps a tenth of itself.
  EXPECT_EQ(ClockBudgetMs(500, 5000, std::nullopt), 450);
  // Late or empty clocks still search for 1 ms.
  EXPECT_EQ(ClockBudgetMs(0, 0, std::nullopt), 1);
  EXPECT_EQ(ClockBudgetMs(-5000, 1000, std::nullopt), 1);
  // moves_to_go 0 or below counts as not given.
  EXPECT_EQ(ClockBudgetMs(3000, 0, 0), 100);
}

TEST(TimeManagerTest, HugeClocksDoNotOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t clamped = int64_t{1} << 40;
  EXPECT_EQ(ClockBudgetMs(kMax, kMax, std::nullopt),
            clamped / 30 + clamped * 3 / 4);
  EXPECT_EQ(ClockBudgetMs(kMax, 0, kMax), 1);  // a share below 1 ms
  EXPECT_EQ(ClockBudgetMs(std::numeric_limits<int64_t>::min(), 0, 1), 1);
}

TEST(CentipawnsTest, LcZeroCentipawnValues) {
  // round(90 * tan(1.5637541897 * q)).
  EXPECT_EQ(CentipawnsFromQ(0), 0);
  EXPECT_EQ(CentipawnsFromQ(0.1), 14);
  EXPECT_EQ(CentipawnsFromQ(0.25), 37);
  EXPECT_EQ(CentipawnsFromQ(0.5), 89);
  EXPECT_EQ(CentipawnsFromQ(-0.5), -89);
  EXPECT_EQ(CentipawnsFromQ(0.9), 546);
  EXPECT_EQ(CentipawnsFromQ(0.99), 3968);
}

TEST(CentipawnsTest, QFromCentipawnsInvertsCentipawnsFromQ) {
  EXPECT_EQ(QFromCentipawns(0), 0);
  EXPECT_NEAR(QFromCentipawns(89), 0.4987, 1e-4);  // atan(89/90)/1.56375
  EXPECT_NEAR(QFromCentipawns(-546), -0.9000, 1e-4);
  for (int cp : {-9999, -3968, -100, -1, 1, 14, 37, 100, 546, 9999}) {
    EXPECT_EQ(CentipawnsFromQ(QFromCentipawns(cp)), cp) << cp;
  }
  // Proven results and beyond.
  EXPECT_EQ(QFromCentipawns(10000), 1);
  EXPECT_EQ(QFromCentipawns(29990), 1);
  EXPECT_EQ(QFromCentipawns(-29990), -1);
}

TEST(CentipawnsTest, ClampedBelowProvenScores) {
  // 90 * tan(1.5637541897 * 0.999) is about 10458: clamped to 9999.
  EXPECT_EQ(CentipawnsFromQ(0.999), 9999);
  EXPECT_EQ(CentipawnsFromQ(1), 9999);
  EXPECT_EQ(CentipawnsFromQ(-1), -9999);
  EXPECT_EQ(CentipawnsFromQ(3), 9999);
  EXPECT_EQ(CentipawnsFromQ(-3), -9999);
  EXPECT_EQ(CentipawnsFromQ(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(CentipawnsFromQ(std::numeric_limits<double>::infinity()), 0);
}

}  // namespace
}  // namespace volkhv::search
