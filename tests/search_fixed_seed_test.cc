// Fixed-seed searches whose results were recorded from the search before
// its tree changed layout (engine/search/node.h): the tree's representation
// must not change a single visit. Priors and values are pseudo-random per
// position, so ties are rare and any change of order shows.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/games/games.h"
#include "engine/search/search.h"
#include "engine/search/search_params.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "tests/fake_evaluator.h"
#include "tests/game_fixtures.h"

namespace volkhv::search {
namespace {

using ::volkhv::testing::FakeEvaluator;
using ::volkhv::testing::ProverOf;
using ::volkhv::testing::StateOf;
using ::volkhv::testing::ValueFromHash;

// Priors: a fixed pseudo-random weight in [1, 9) per move (from the
// position's hash and the move), normalised.
void HashPriors(const GameState& state, const MoveList& moves,
                std::vector<float>* priors) {
  priors->resize(moves.size());
  float sum = 0;
  for (int i = 0; i < moves.size(); ++i) {
    const uint64_t h =
        (state.Hash() ^ (uint64_t{moves[i].Packed()} * 0xBF58476D1CE4E5B9ull)) *
        0x94D049BB133111EBull;
    (*priors)[i] = 1 + 8 * static_cast<float>(h >> 40) / (1 << 24);
    sum += (*priors)[i];
  }
  for (float& p : *priors) p /= sum;
}

// What the test compares: the tree size, the sums of every root move's
// visits and pruned visits (Search::PrunedRootVisits) weighted by its
// legal-move index (any moved visit shows), and the
// first `top` moves in report order with their visits, then the best
// move's principal variation.
std::string Fingerprint(const Search& search, const SearchResult& r,
                        int top = 4) {
  std::string out = Cat("nodes ", r.tree_nodes, " visits ", r.root_visits);
  uint64_t weighted = 0;
  const auto visits = search.RootVisits();
  for (size_t i = 0; i < visits.size(); ++i) {
    weighted += (i + 1) * visits[i].second;
  }
  uint64_t pruned = 0;
  const auto pruned_visits = search.PrunedRootVisits();
  for (size_t i = 0; i < pruned_visits.size(); ++i) {
    pruned += (i + 1) * pruned_visits[i].second;
  }
  out += Cat(" weighted ", weighted, " pruned ", pruned, ":");
  const GameState& root = search.root_state();
  for (int i = 0; i < top && i < static_cast<int>(r.moves.size()); ++i) {
    out += Cat(" ", root.MoveText(r.moves[i].move), "=", r.moves[i].visits);
  }
  out += " pv";
  auto state = root.Clone();
  for (Move m : r.moves.front().pv) {
    out += Cat(" ", state->MoveText(m));
    state->Play(m);
  }
  out += Cat(" best ", root.MoveText(r.best_move));
  return out;
}

// The start position of `game_name`, or `text` if not empty.
std::string RunFixedSeed(std::string_view game_name, SearchParams params,
                         uint64_t visits, bool advance,
                         std::string_view position = "") {
  auto state = StateOf(game_name, position);
  FakeEvaluator evaluator(HashPriors, ValueFromHash(0.8f));
  Search search(params, &evaluator, ProverOf(*state), /*seed=*/7);
  EXPECT_TRUE(search.SetPosition(*state).ok());
  SearchLimits limits;
  limits.visits = visits;
  SearchResult r = search.Run(limits);
  if (advance) {
    // Tree reuse: play the best move and search on from its subtree.
    EXPECT_TRUE(search.Advance(r.best_move).ok());
    r = search.Run(limits);
  }
  return Fingerprint(search, r);
}

TEST(FixedSeedSearchTest, PuctWithNoiseAndForcedPlayoutsInTavreli) {
  SearchParams params;
  params.root_noise = true;
  params.forced_playouts_k = 2;
  EXPECT_EQ(RunFixedSeed("tavreli", params, 3000, /*advance=*/true),
            "nodes 3001 visits 3000 weighted 66707 pruned 63678: h8xg8=475 "
            "d8xc8=346 a8xa7=322 a7-a6=210 pv h8xg8 f1xg2 f7-f5 g2(1)-f1 e8xf8 "
            "h2-h3 d8-e8 b1xd2 f5-f4 d2-b3 best h8xg8");
}

TEST(FixedSeedSearchTest, GumbelInTavreli) {
  SearchParams params;
  params.gumbel = true;
  EXPECT_EQ(RunFixedSeed("tavreli", params, 1200, /*advance=*/true),
            "nodes 1200 visits 1200 weighted 29204 pruned 29204: f8xg7=238 "
            "g8-h6=220 b8xd7=180 d7-d6=117 pv f8xg7 d1xc2 g7(1)-d4 a2-a3 g8-f6 "
            "a3-a4 best g8-h6");
}

TEST(FixedSeedSearchTest, PuctWithTacticsInTavlei) {
  SearchParams params;
  EXPECT_EQ(RunFixedSeed("tavlei9", params, 4000, /*advance=*/true),
            "nodes 4349 visits 4000 weighted 111682 pruned 111682: f5-f4=355 "
            "e6-f6=321 e3-d3=299 g5-g2=287 pv f5-f4 f8-h8 d5-d6 h5-h1 e7-i7 "
            "h8-g8 c5-d5 f9-f6 e5-f5 best f5-f4");
}

TEST(FixedSeedSearchTest, PuctProvesATavreliMateInTwo) {
  // White mates in two (tests/search_test.cc: kMateInTwo); the proofs run
  // through UpdateProven and the report ranks proven moves first.
  SearchParams params;
  EXPECT_EQ(RunFixedSeed("tavreli", params, 2000, /*advance=*/false,
                         "1k6/4Rpr2/8/2K5/3N4/1pr4b1/2B5/7n w - - 0 1"),
            "nodes 159 visits 151 weighted 2250 pruned 2250: d4-c6=4 c5-b6=34 "
            "c2-d3=14 d4xc2=12 pv d4-c6 b8-c8 c2-f5 best d4-c6");
}

}  // namespace
}  // namespace volkhv::search
