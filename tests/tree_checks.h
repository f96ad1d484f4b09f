// What the search suites share: checks of a search tree's bookkeeping, and
// the limits of a search that stops at a number of root visits.
#ifndef VOLKHV_TESTS_TREE_CHECKS_H_
#define VOLKHV_TESTS_TREE_CHECKS_H_

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/search/node.h"
#include "engine/search/search_result.h"
#include "gtest/gtest.h"

namespace volkhv::testing {

// Limits of a search that stops at `visits` root visits.
inline search::SearchLimits Visits(uint64_t visits) {
  search::SearchLimits limits;
  limits.visits = visits;
  return limits;
}

// Checks the tree's bookkeeping everywhere (no recursion): no visit left in
// flight, each node's children listed once each in edge order, each
// expanded unproven node's children hold n - 1 visits, and each node's
// minimax is its children's best (Node::minimax).
inline void ExpectConsistentTree(const search::Node* root) {
  std::vector<const search::Node*> stack = {root};
  int checked = 0;
  while (!stack.empty()) {
    const search::Node* node = stack.back();
    stack.pop_back();
    ASSERT_EQ(node->in_flight, 0u);
    uint64_t child_visits = 0;
    int last_index = -1;
    for (const search::Node* child = node->first_child; child != nullptr;
         child = child->next_sibling) {
      // The children list: one child per edge, in edge order.
      ASSERT_GT(static_cast<int>(child->index), last_index);
      ASSERT_LT(child->index, node->num_edges);
      last_index = child->index;
      child_visits += child->n;
      stack.push_back(child);
    }
    if (node->expanded() && node->proven() == search::Proven::kNone) {
      ASSERT_EQ(child_visits, node->n - 1);
      ++checked;
    }
    // Implicit minimax backups: a proven node holds its exact value, one
    // with visited children the best of theirs for its side to move.
    if (node->proven() != search::Proven::kNone) {
      ASSERT_EQ(node->minimax,
                std::lround(node->wl * search::Node::kMinimaxUnit));
    } else if (child_visits > 0) {
      int best = INT_MIN;
      for (const search::Node* child = node->first_child; child != nullptr;
           child = child->next_sibling) {
        if (child->n == 0) continue;
        const int v = child->side_to_move == node->side_to_move
                          ? child->minimax
                          : -child->minimax;
        best = std::max(best, v);
      }
      ASSERT_EQ(node->minimax, best);
    }
    if (node->n > 0) {
      ASSERT_TRUE(node->expanded() || node->terminal);
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace volkhv::testing

#endif  // VOLKHV_TESTS_TREE_CHECKS_H_
