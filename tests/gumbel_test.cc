#include "engine/search/gumbel.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace volkhv::search::gumbel {
namespace {

using ::testing::ElementsAre;

TEST(GumbelTest, SequenceOfFourActionsAndSixteenSimulations) {
  // Two phases: four actions get 16 / (2 * 4) = 2 visits each, then the
  // best two get 16 / (2 * 2) = 4 more each.
  EXPECT_THAT(ConsideredVisitSequence(4, 16),
              ElementsAre(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5));
}

TEST(GumbelTest, SequenceWithTinyBudgetsVisitsTheBestFirst) {
  EXPECT_THAT(ConsideredVisitSequence(16, 2), ElementsAre(0, 0));
  EXPECT_THAT(ConsideredVisitSequence(2, 4), ElementsAre(0, 0, 1, 1));
  EXPECT_THAT(ConsideredVisitSequence(3, 4), ElementsAre(0, 0, 0, 1));
  EXPECT_TRUE(ConsideredVisitSequence(8, 0).empty());
}

TEST(GumbelTest, SequenceOfOneActionCountsUp) {
  EXPECT_THAT(ConsideredVisitSequence(1, 4), ElementsAre(0, 1, 2, 3));
}

TEST(GumbelTest, SequenceHasTheBudgetsLength) {
  for (int m : {1, 2, 3, 5, 16, 40}) {
    for (int budget : {1, 2, 7, 64, 200}) {
      EXPECT_EQ(ConsideredVisitSequence(m, budget).size(), budget)
          << m << " " << budget;
    }
  }
}

TEST(GumbelTest, TopKTakesLogitsPlusNoise) {
  const std::vector<double> logits = {0, 1, 2};
  const std::vector<double> noise = {3, 0, 0};
  EXPECT_THAT(GumbelTopK(logits, noise, 2), ElementsAre(0, 2));
  EXPECT_THAT(GumbelTopK(logits, noise, 5), ElementsAre(0, 2, 1));
  // Ties go to the lower index.
  const std::vector<double> zeros = {0, 0, 0};
  EXPECT_THAT(GumbelTopK(zeros, zeros, 2), ElementsAre(0, 1));
}

TEST(GumbelTest, GumbelSamplesAreTheInverseCdf) {
  EXPECT_NEAR(GumbelSample(std::exp(-1.0)), 0.0, 1e-12);
  EXPECT_NEAR(GumbelSample(0.5), -std::log(std::log(2.0)), 1e-12);
  EXPECT_TRUE(std::isfinite(GumbelSample(0.0)));
}

TEST(GumbelTest, MixedAndCompletedValuesOnAHandMadeNode) {
  const std::vector<double> priors = {0.5, 0.3, 0.2};
  const std::vector<double> q = {0.6, 0.0, -0.4};
  const std::vector<uint32_t> visits = {2, 0, 1};
  // Visited: prior mass 0.7, prior-weighted Q 0.5 * 0.6 + 0.2 * -0.4 = 0.22.
  const double mixed = (0.2 + 3 * (0.22 / 0.7)) / (1 + 3);
  EXPECT_NEAR(MixedValue(0.2, priors, q, visits), mixed, 1e-12);
  const std::vector<double> completed = CompletedQ(0.2, priors, q, visits);
  ASSERT_EQ(completed.size(), 3);
  EXPECT_NEAR(completed[0], 1.0, 1e-12);
  EXPECT_NEAR(completed[1], (mixed + 0.4) / 1.0, 1e-12);
  EXPECT_NEAR(completed[2], 0.0, 1e-12);
}

TEST(GumbelTest, MixedValueWithoutVisitsIsTheNetworkValue) {
  const std::vector<double> priors = {0.5, 0.5};
  const std::vector<double> q = {0.9, 0.9};
  const std::vector<uint32_t> none = {0, 0};
  EXPECT_EQ(MixedValue(-0.3, priors, q, none), -0.3);
  EXPECT_THAT(CompletedQ(-0.3, priors, q, none), ElementsAre(0.0, 0.0));
}

TEST(GumbelTest, ImprovedPolicyIsTheFormula) {
  const std::vector<double> logits = {std::log(0.5), std::log(0.3),
                                      std::log(0.2)};
  const std::vector<double> completed = {1.0, 0.25, 0.0};
  const std::vector<uint32_t> visits = {2, 0, 1};
  const SigmaParams params{.c_visit = 50, .c_scale = 0.1};
  // sigma(q) = (50 + 2) * 0.1 * q.
  const double e0 = 0.5 * std::exp(5.2 * 1.0);
  const double e1 = 0.3 * std::exp(5.2 * 0.25);
  const double e2 = 0.2 * std::exp(0.0);
  const double sum = e0 + e1 + e2;
  const std::vector<double> policy =
      ImprovedPolicy(logits, completed, visits, params);
  ASSERT_EQ(policy.size(), 3);
  EXPECT_NEAR(policy[0], e0 / sum, 1e-12);
  EXPECT_NEAR(policy[1], e1 / sum, 1e-12);
  EXPECT_NEAR(policy[2], e2 / sum, 1e-12);
}

TEST(GumbelTest, ImprovedPolicyGivesZeroToImpossibleMoves) {
  const std::vector<double> logits = {-INFINITY, 0.0};
  const std::vector<double> completed = {1.0, 0.0};
  const std::vector<uint32_t> visits = {0, 0};
  EXPECT_THAT(ImprovedPolicy(logits, completed, visits, SigmaParams{}),
              ElementsAre(0.0, 1.0));
}

TEST(GumbelTest, InteriorSelectionFollowsThePolicyMinusVisitShare) {
  const std::vector<double> policy = {0.6, 0.35, 0.05};
  // Scores 0.6 - 3/5, 0.35 - 1/5, 0.05 - 0/5.
  EXPECT_EQ(SelectInterior(policy, std::vector<uint32_t>{3, 1, 0}), 1);
  EXPECT_EQ(SelectInterior(policy, std::vector<uint32_t>{0, 0, 0}), 0);
  // Scores 0.6 - 6/8, 0.35 - 1/8, 0.05; then 0.6 - 7/12, 0.35 - 4/12, 0.05.
  EXPECT_EQ(SelectInterior(policy, std::vector<uint32_t>{6, 1, 0}), 1);
  EXPECT_EQ(SelectInterior(policy, std::vector<uint32_t>{7, 4, 0}), 2);
  // Ties go to the lower index.
  EXPECT_EQ(SelectInterior(std::vector<double>{0.5, 0.5},
                           std::vector<uint32_t>{0, 0}),
            0);
}

}  // namespace
}  // namespace volkhv::search::gumbel
