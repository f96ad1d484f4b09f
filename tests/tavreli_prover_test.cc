// The Tavreli prover (engine/tavreli/tavreli_prover.h): mates in one, found
// whatever their prior, checked against brute force over random games.
#include "engine/tavreli/tavreli_prover.h"

#include <memory>
#include <string>

#include "engine/game/prover.h"
#include "engine/games/games.h"
#include "engine/tavreli/module.h"
#include "engine/tavreli/notation.h"
#include "engine/tavreli/tavreli_game.h"
#include "gtest/gtest.h"
#include "tests/game_fixtures.h"
#include "tests/tavreli_test_util.h"

namespace volkhv::tavreli {
namespace {

std::string MateInOne(std::string_view tfen) {
  const Position position = PositionOf(tfen);
  const Move mate = FindMateInOne(position);
  return mate.IsNull() ? "none" : MoveToString(position, mate);
}

TEST(TavreliProverTest, FindsTheMateInOne) {
  // The back-rank mate a trained net's search at 1,000 visits missed.
  EXPECT_EQ(MateInOne("k7/8/1K6/8/8/8/8/7R w - - 0 1"), "h1-h8");
  // The same for Black.
  EXPECT_EQ(MateInOne("7r/8/8/8/8/1k6/8/K7 b - - 0 1"), "h8-h1");
  // A check the rook on b8 answers by capturing is no mate.
  EXPECT_EQ(MateInOne("kr6/8/1K6/8/8/8/8/7R w - - 0 1"), "none");
  EXPECT_EQ(MateInOne(kStartTfen), "none");
}

// Complete and sound: a mate in one is named exactly when some legal move
// checkmates (the game's own Result after it), on positions of random games
// and on the positions one ply before their checkmates.
TEST(TavreliProverTest, AgreesWithBruteForce) {
  const std::unique_ptr<Game> game = ::volkhv::testing::NewGame("tavreli");
  const Prover* prover = GameProver(*game);
  ASSERT_NE(prover, nullptr);
  int with_mate = 0;
  for (const std::unique_ptr<GameState>& state :
       ::volkhv::testing::RandomPositions(*game, 3000, 7, /*keep_one_in=*/2,
                                          /*max_plies=*/400)) {
    MoveList legal;
    state->LegalMoves(&legal);
    bool mates = false;
    for (const Move move : legal) {
      state->Play(move);
      const GameResult result = state->Result();
      mates |= result.termination == kCheckmate;
      state->Undo();
    }
    const Move claim = prover->ImmediateWin(*state);
    ASSERT_EQ(!claim.IsNull(), mates) << state->PositionText();
    if (claim.IsNull()) continue;
    ++with_mate;
    state->Play(claim);
    EXPECT_EQ(state->Result().termination, kCheckmate) << state->PositionText();
    state->Undo();
  }
  // Random games mate often enough for the test to mean something.
  EXPECT_GT(with_mate, 20);
}

}  // namespace
}  // namespace volkhv::tavreli
