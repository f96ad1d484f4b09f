#include "engine/search/gumbel_select.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace volkhv::search {
namespace {

using ::testing::ElementsAre;

// A root (side 0) with one child per prior; values are backed up by hand as
// the search would, from the root's point of view.
class HandTree {
 public:
  HandTree(const std::vector<float>& priors, double root_value)
      : edges_(priors.size()),
        children_(priors.size()),
        linked_(priors.size(), false) {
    for (size_t i = 0; i < priors.size(); ++i) {
      edges_[i].move = Move{static_cast<uint8_t>(i), 0, 0};
      edges_[i].prior = priors[i];
      children_[i].side_to_move = 1;
      children_[i].index = static_cast<uint16_t>(i);
    }
    root_.edges = edges_.data();
    root_.num_edges = static_cast<uint16_t>(edges_.size());
    root_.n = 1;
    root_.wl = root_value;
  }
  Node& root() { return root_; }
  Node& child(int i) { return children_[i]; }
  // One playout through edge i that the evaluator values `value` for the
  // root's side.
  void Visit(int i, double value) {
    Node& c = children_[i];
    if (!linked_[i]) {
      // Link the visited children in index order, as Tree::AddChild does.
      linked_[i] = true;
      root_.first_child = nullptr;
      for (int j = static_cast<int>(children_.size()) - 1; j >= 0; --j) {
        if (!linked_[j]) continue;
        children_[j].next_sibling = root_.first_child;
        root_.first_child = &children_[j];
      }
    }
    c.wl = (c.wl * c.n - value) / (c.n + 1);
    ++c.n;
    root_.wl = (root_.wl * root_.n + value) / (root_.n + 1);
    ++root_.n;
  }

 private:
  Node root_;
  std::vector<Edge> edges_;
  std::vector<Node> children_;
  std::vector<bool> linked_;  // per child: in the root's children list
};

GumbelParams NoNoise() {
  GumbelParams params;
  params.noise = false;
  return params;
}

TEST(GumbelRootTest, SequentialHalvingVisitsInTheDocumentedPattern) {
  HandTree tree({0.25f, 0.25f, 0.25f, 0.25f}, 0.0);
  const std::vector<double> value = {0.1, 0.5, -0.2, 0.3};
  Rng rng(1);
  GumbelRoot gumbel;
  gumbel.Start(tree.root(), 16, NoNoise(), 0, &rng);
  std::vector<int> order;
  for (int s = 0; s < 16; ++s) {
    const int i = gumbel.Next(tree.root());
    order.push_back(i);
    tree.Visit(i, value[i]);
  }
  // Phase 1: two visits each, the second round best first; phase 2: the
  // best two (1 and 3) take turns.
  EXPECT_THAT(order,
              ElementsAre(0, 1, 2, 3, 1, 3, 0, 2, 1, 3, 1, 3, 1, 3, 1, 3));
  EXPECT_EQ(gumbel.Choice(tree.root()), 1);
}

TEST(GumbelRootTest, TwoSimulationsNeverChooseAProvenLoss) {
  // The first move's prior dwarfs the others: without the proof, logit +
  // sigma(Q) would still choose it.
  HandTree tree({0.999f, 0.0005f, 0.0005f}, 0.0);
  Rng rng(1);
  GumbelRoot gumbel;
  gumbel.Start(tree.root(), 2, NoNoise(), 0, &rng);
  ASSERT_EQ(gumbel.Next(tree.root()), 0);
  tree.Visit(0, -1.0);
  tree.child(0).set_proven(Proven::kWin);  // for the opponent
  const int second = gumbel.Next(tree.root());
  EXPECT_NE(second, 0);
  tree.Visit(second, -0.5);
  EXPECT_EQ(gumbel.Choice(tree.root()), second);
}

TEST(GumbelRootTest, AProvenWinIsChosenAtOnce) {
  HandTree tree({0.7f, 0.2f, 0.1f}, 0.0);
  tree.Visit(2, 1.0);
  tree.child(2).set_proven(Proven::kLoss);  // for the opponent
  Rng rng(1);
  GumbelRoot gumbel;
  gumbel.Start(tree.root(), 8, NoNoise(), 0, &rng);
  EXPECT_EQ(gumbel.Next(tree.root()), 2);
  EXPECT_EQ(gumbel.Choice(tree.root()), 2);
}

TEST(GumbelRootTest, ImprovedPolicyIsLogitsPlusSigmaOfCompletedQ) {
  HandTree tree({0.5f, 0.3f, 0.2f}, 0.2);
  tree.Visit(0, 0.6);
  tree.Visit(0, 0.6);
  tree.Visit(2, -0.4);
  Rng rng(1);
  GumbelRoot gumbel;
  gumbel.Start(tree.root(), 4, NoNoise(), 0, &rng);
  // The root's own value is 0.2 again (NetworkValue); v_mix and the
  // rescaled Q-values as in gumbel_test.cc.
  EXPECT_NEAR(NetworkValue(tree.root(), 0), 0.2, 1e-12);
  const double mixed = (0.2 + 3 * (0.22 / 0.7)) / 4;
  const std::vector<double> q = {1.0, (mixed + 0.4) / 1.0, 0.0};
  const double sigma = (50 + 2) * 0.1;
  std::vector<double> want = {0.5 * std::exp(sigma * q[0]),
                              0.3 * std::exp(sigma * q[1]),
                              0.2 * std::exp(sigma * q[2])};
  const double sum = want[0] + want[1] + want[2];
  const std::vector<double> got = gumbel.ImprovedPolicy(tree.root());
  ASSERT_EQ(got.size(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], want[i] / sum, 1e-6) << i;
}

TEST(GumbelRootTest, NoiseChangesTheConsideredActionsButNotTheCount) {
  HandTree tree(std::vector<float>(20, 0.05f), 0.0);
  GumbelParams params;
  params.considered = 4;
  Rng rng(7);
  GumbelRoot gumbel;
  gumbel.Start(tree.root(), 8, params, 0, &rng);
  std::vector<int> visited;
  for (int s = 0; s < 8; ++s) {
    const int i = gumbel.Next(tree.root());
    tree.Visit(i, 0.0);
    if (std::find(visited.begin(), visited.end(), i) == visited.end()) {
      visited.push_back(i);
    }
  }
  EXPECT_EQ(visited.size(), 4);  // m = 4 actions, all of them visited
}

TEST(GumbelInteriorTest, UnvisitedHighPriorFirstThenByImprovedPolicy) {
  HandTree tree({0.1f, 0.6f, 0.3f}, 0.0);
  const GumbelParams params = NoNoise();
  EXPECT_EQ(SelectGumbelInterior(tree.root(), 0, params), 1);
  tree.Visit(1, -0.9);  // a bad move
  // Completed Q now favours the unvisited moves (the mixed value) over the
  // visited bad one; of those, the larger prior.
  EXPECT_EQ(SelectGumbelInterior(tree.root(), 0, params), 2);
}

}  // namespace
}  // namespace volkhv::search
