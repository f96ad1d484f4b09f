// Implicit minimax backups (SearchParams::minimax_weight, Node::minimax):
// the tree's minimax of leaf values, and what it does to PUCT's choices.
#include <array>
#include <cmath>
#include <map>
#include <string>

#include "engine/games/games.h"
#include "engine/search/node.h"
#include "engine/search/search.h"
#include "engine/search/search_params.h"
#include "gtest/gtest.h"
#include "tests/fake_evaluator.h"
#include "tests/game_fixtures.h"
#include "tests/nim/module.h"
#include "tests/tree_checks.h"

namespace volkhv::search {
namespace {

using ::volkhv::testing::ExpectConsistentTree;
using ::volkhv::testing::FakeEvaluator;
using ::volkhv::testing::Visits;

const bool kNimRegistered = nim::RegisterNim();

// Nim from 20 stones, player 0 to move. Values of the positions two plies
// down, for player 0 (every other position is worth 0):
//   take 1 -> 19: the replies leave 18 (-0.9), 17 (+0.9) or 16 (+0.9): two
//                 good replies for player 0 and one refutation;
//   take 2 -> 18: 17 (+0.9), 16 (+0.9), 15 (+0.3);
//   take 3 -> 17: 16 (+0.9), 15 (+0.3), 14 (+0.3).
// Two plies down the minimax of "take 1" is -0.9, of the others +0.3; the
// mean of the replies puts "take 1" at +0.3, above the minimax of both.
std::array<float, 3> BaitValue(const GameState& state) {
  const std::string text = state.PositionText();  // "pile side"
  const int pile = std::stoi(text);
  const int side = state.SideToMove();
  double for_first = 0;
  if (side == 0) {
    if (pile == 18) for_first = -0.9;
    if (pile == 17 || pile == 16) for_first = 0.9;
    if (pile == 15 || pile == 14) for_first = 0.3;
  }
  const double wl = side == 0 ? for_first : -for_first;
  return {static_cast<float>((1 + wl) / 2), 0,
          static_cast<float>((1 - wl) / 2)};
}

struct BaitSearch {
  std::map<std::string, uint32_t> visits;  // by move text ("1", "2", "3")
  double take_one_minimax = 0;             // for player 0
};

BaitSearch SearchBait(double minimax_weight, int visits) {
  BaitSearch out;
  auto game = MakeGame("nim", {{"stones", 20}});
  EXPECT_TRUE(game.ok());
  if (!game.ok()) return out;
  auto state = (*game)->NewInitialState();
  FakeEvaluator evaluator(nullptr, BaitValue);
  SearchParams params;
  params.minimax_weight = minimax_weight;
  params.minibatch_size = 1;
  Search search(params, &evaluator, nullptr, 1);
  EXPECT_TRUE(search.SetPosition(*state).ok());
  const SearchResult result = search.Run(Visits(visits));
  ExpectConsistentTree(search.root());
  for (const MoveInfo& info : result.moves) {
    out.visits[state->MoveText(info.move)] = info.visits;
  }
  const Node* root = search.root();
  for (const Node* c = root->first_child; c != nullptr; c = c->next_sibling) {
    if (state->MoveText(root->edges[c->index].move) == "1") {
      out.take_one_minimax = c->MinimaxFor(0);
    }
  }
  return out;
}

TEST(MinimaxBackupTest, TheTreeHoldsTheMinimaxOfItsLeafValues) {
  ASSERT_TRUE(kNimRegistered);
  // ExpectConsistentTree (in SearchBait) checks every node's minimax
  // against its children's; here the value of the bait itself once its
  // refutation has been valued: -0.9, or 0 once the refutation's own
  // replies (worth 0) have been searched, never the mean's +0.3.
  for (double weight : {0.0, 1.0}) {
    SCOPED_TRACE(weight);
    const BaitSearch bait = SearchBait(weight, 40);
    EXPECT_LT(bait.take_one_minimax, 0.01);
  }
}

// At 40 visits, before the refutation's own replies (worth 0) wash its
// value out, the mean makes the bait the most visited move and the minimax
// the least (measured when the test was written: 15 of 39 root-child visits
// with weight 0, 8 with weight 1).
TEST(MinimaxBackupTest, TheMinimaxShareStarvesAMoveWithARefutation) {
  ASSERT_TRUE(kNimRegistered);
  const BaitSearch mean = SearchBait(0, 40);
  const BaitSearch minimax = SearchBait(1, 40);
  EXPECT_GT(mean.visits.at("1"), mean.visits.at("2"));
  EXPECT_GT(mean.visits.at("1"), mean.visits.at("3"));
  EXPECT_LT(minimax.visits.at("1"), minimax.visits.at("2"));
  EXPECT_LT(minimax.visits.at("1"), minimax.visits.at("3"));
}

}  // namespace
}  // namespace volkhv::search
