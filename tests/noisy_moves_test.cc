// Heuristic::NoisyMoves, quiescence's move list: the Tavreli override, which
// generates only the moves that may capture or promote, gives exactly the
// moves, order and classes of the default (every legal move classified, the
// quiet ones dropped), and an alpha-beta search with either visits the same
// tree: the same score, move and node count.
#include <memory>
#include <string>
#include <vector>

#include "engine/game/heuristic.h"
#include "engine/search/alphabeta.h"
#include "engine/tavreli/heuristic.h"
#include "gtest/gtest.h"
#include "tests/game_fixtures.h"

namespace volkhv {
namespace {

using ::volkhv::testing::NewGame;
using ::volkhv::testing::RandomPositions;
using ::volkhv::testing::StateOf;

// The Tavreli heuristic with the interface's default NoisyMoves.
class DefaultNoisyMoves final : public Heuristic {
 public:
  std::string_view GameName() const override { return tavreli_.GameName(); }
  int Evaluate(const GameState& state) const override {
    return tavreli_.Evaluate(state);
  }
  void ClassifyMoves(const GameState& state, const MoveList& moves,
                     MoveClass* out) const override {
    tavreli_.ClassifyMoves(state, moves, out);
  }

 private:
  tavreli::TavreliHeuristic tavreli_;
};

struct NoisyList {
  MoveList moves;
  std::vector<MoveClass> classes = std::vector<MoveClass>(kMaxMoves);
};

NoisyList NoisyOf(const Heuristic& h, const GameState& state) {
  NoisyList list;
  h.NoisyMoves(state, &list.moves, list.classes.data());
  return list;
}

// Hand-made positions for what random games seldom reach.
constexpr const char* kSpecialPositions[] = {
    // En passant: d7-d5 was just played next to the e5 pawn.
    "4k3/8/8/3pbPQ3/8/8/8/4K3 w - d6 0 1",
    // A pawn promotes on b8, or by taking the a8 rook.
    "r3k3/1PQ6/8/8/8/8/8/4K3 w - - 0 1",
    // The e2 knight is pinned: taking d4 is not legal.
    "4r1k1/8/8/8/3pb4/8/4N3/4K3 w - - 0 1",
    // A stack takes with its top, or with both pieces.
    "4k3/8/8/3r4/8/8/8/3(NR)K3 w - - 0 1",
    // In check, taking the checker is one of the evasions.
    "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
};

void ExpectSameNoisyMoves(const GameState& state, const Heuristic& fast,
                          const Heuristic& reference) {
  const NoisyList got = NoisyOf(fast, state);
  const NoisyList want = NoisyOf(reference, state);
  ASSERT_EQ(got.moves.size(), want.moves.size()) << state.PositionText();
  for (int i = 0; i < want.moves.size(); ++i) {
    EXPECT_EQ(got.moves[i], want.moves[i])
        << state.PositionText() << " move " << i;
    EXPECT_TRUE(got.classes[i].noisy);
    EXPECT_EQ(got.classes[i].gain, want.classes[i].gain);
    EXPECT_EQ(got.classes[i].order, want.classes[i].order);
  }
}

TEST(NoisyMovesTest, TavreliGivesTheDefaultsMovesInItsOrder) {
  const tavreli::TavreliHeuristic fast;
  const DefaultNoisyMoves reference;
  for (const char* text : kSpecialPositions) {
    ExpectSameNoisyMoves(*StateOf("tavreli", text), fast, reference);
  }
  // What the special positions hold, spelt out.
  const auto moves_of = [&](const char* text) {
    std::unique_ptr<GameState> s = StateOf("tavreli", text);
    std::vector<std::string> names;
    for (Move m : NoisyOf(fast, *s).moves) names.push_back(s->MoveText(m));
    return names;
  };
  EXPECT_EQ(moves_of(kSpecialPositions[0]).size(), 1u);  // e5xd6 e.p.
  EXPECT_EQ(moves_of(kSpecialPositions[1]).size(), 2u);  // b7-b8, b7xa8
  EXPECT_TRUE(moves_of(kSpecialPositions[2]).empty());
  EXPECT_EQ(moves_of(kSpecialPositions[3]).size(), 2u);  // d1xd5 with 1 or 2

  const std::unique_ptr<Game> game = NewGame("tavreli");
  int with_noisy = 0;
  for (const std::unique_ptr<GameState>& state :
       RandomPositions(*game, 3000, /*seed=*/17)) {
    ExpectSameNoisyMoves(*state, fast, reference);
    if (!NoisyOf(fast, *state).moves.empty()) ++with_noisy;
  }
  // Random games are full of captures: the comparison is not of empty lists.
  EXPECT_GT(with_noisy, 1500);
}

TEST(NoisyMovesTest, AlphaBetaSearchesTheSameTreeWithEither) {
  const tavreli::TavreliHeuristic fast;
  const DefaultNoisyMoves reference;
  search::AlphaBetaOptions options;
  options.hash_mb = 1;
  options.quiescence_plies = 3;
  options.recapture_plies = 8;
  search::AlphaBetaSearch fast_search(&fast, options);
  search::AlphaBetaSearch reference_search(&reference, options);
  search::AlphaBetaLimits limits;
  limits.depth = 2;
  const std::unique_ptr<Game> game = NewGame("tavreli");
  uint64_t quiescence_moves = 0;
  for (const std::unique_ptr<GameState>& state :
       RandomPositions(*game, 200, /*seed=*/5)) {
    Move fast_move, reference_move;
    EXPECT_EQ(fast_search.QuiescenceScore(state.get(), &fast_move),
              reference_search.QuiescenceScore(state.get(), &reference_move))
        << state->PositionText();
    EXPECT_EQ(fast_move, reference_move) << state->PositionText();
    if (!fast_move.IsNull()) ++quiescence_moves;
    fast_search.Clear();
    reference_search.Clear();
    const search::AlphaBetaResult got = fast_search.Search(*state, limits);
    const search::AlphaBetaResult want =
        reference_search.Search(*state, limits);
    EXPECT_EQ(got.score, want.score) << state->PositionText();
    EXPECT_EQ(got.best_move, want.best_move) << state->PositionText();
    EXPECT_EQ(got.nodes, want.nodes) << state->PositionText();
  }
  // Many of the positions have a capture worth more than standing pat.
  EXPECT_GT(quiescence_moves, 50u);
}

}  // namespace
}  // namespace volkhv
