// Tavreli rules by their effect on the position: promotion, demotion, en
// passant, castling rights, clocks, legality details and game results.
#include <string>

#include "engine/games/games.h"
#include "engine/tavreli/module.h"
#include "engine/tavreli/movegen.h"
#include "engine/tavreli/tavreli_game.h"
#include "engine/util/strings.h"
#include "tests/tavreli_test_util.h"

namespace volkhv::tavreli {
namespace {

bool IsLegal(std::string_view tfen, std::string_view move) {
  return ParseMove(PositionOf(tfen), move).ok();
}

TEST(PromotionTest, EverySymbolPromotesToItsPiece) {
  struct Case {
    const char* pawn;
    const char* promoted;
  };
  for (const Case& c : {Case{"PR", "+R"}, Case{"PN", "+N"}, Case{"PB", "+B"},
                        Case{"PQ", "+Q"}, Case{"PH", "+H"}}) {
    const std::string tfen = Cat("4k3/1", c.pawn, "6/8/8/8/8/8/4K3 w - - 0 1");
    EXPECT_EQ(PlayMoves(tfen, {"b7-b8"}),
              Cat("1", c.promoted, "2k3/8/8/8/8/8/8/4K3 b - - 0 1"));
  }
  // Black promotes on rank 1.
  EXPECT_EQ(PlayMoves("4k3/8/8/8/8/8/6ph1/K7 b - - 0 1", {"g2-g1"}),
            "4k3/8/8/8/8/8/8/K5+h1 w - - 0 2");
}

TEST(PromotionTest, PawnTopppedUnitArrivingPromotesOnlyTheTop) {
  // c7 = N PQ (pawn on top); the whole stack steps onto c8: the pawn on top
  // promotes, the knight under it stays a knight.
  EXPECT_EQ(PlayMoves("4k3/2(NPQ)5/8/8/8/8/8/4K3 w - - 0 1", {"c7-c8"}),
            "2(N+Q)1k3/8/8/8/8/8/8/4K3 b - - 0 1");
}

TEST(PromotionTest, SplitRemainderPromotes) {
  // c8 = PB N: the knight leaves alone, uncovering the pawn on its last rank.
  EXPECT_EQ(PlayMoves("2(PBN)1k3/8/8/8/8/8/8/4K3 w - - 0 1", {"c8(1)-d6"}),
            "2+B1k3/8/3N4/8/8/8/8/4K3 b - - 1 1");
}

TEST(PromotionTest, UncoveredByTheOpponentPromotes) {
  // A black rook sits on a white PH on b8 and leaves alone: the white pawn,
  // uncovered on its last rank, becomes a Helgi at once, during Black's move.
  EXPECT_EQ(PlayMoves("1(PHr)6/8/7k/8/8/8/8/4K3 b - - 0 1", {"b8(1)-b2"}),
            "1+H6/8/7k/8/8/8/1r6/4K3 w - - 1 2");
  // With the black king on e8 the new Helgi would attack it along rank 8, so
  // the same split is illegal.
  EXPECT_FALSE(IsLegal("1(PHr)2k3/8/8/8/8/8/8/4K3 b - - 0 1", "b8(1)-b2"));
}

TEST(PromotionTest, PawnInsideAStackOnTheLastRankWaits) {
  // The white pawn rides inside a stack topped by a rook onto rank 8: not
  // promoted (not on top).
  EXPECT_EQ(PlayMoves("4k3/8/8/8/8/8/8/R(PRR)2K3 w - - 0 1", {"b1-b8"}),
            "1(PRR)2k3/8/8/8/8/8/8/R3K3 b - - 1 1");
}

TEST(DemotionTest, CoveringAPromotedPawnDemotesIt) {
  // Black's rook captures the white +Q on d5: it turns back into a PQ.
  EXPECT_EQ(PlayMoves("3rk3/8/8/3+Q4/8/8/8/4K3 b - - 0 1", {"d8xd5"}),
            "4k3/8/8/3(PQr)4/8/8/8/4K3 w - - 0 2");
  // Own stacking demotes too.
  EXPECT_EQ(PlayMoves("4k3/8/8/3+Q4/8/8/3R4/4K3 w - - 0 1", {"d2xd5"}),
            "4k3/8/8/3(PQR)4/8/8/8/4K3 b - - 1 1");
}

TEST(EnPassantTest, ThePawnGoesUnderTheCapturer) {
  EXPECT_EQ(PlayMoves("4k3/8/8/3pqPH3/8/8/8/4K3 w - d6 0 1", {"e5xd6"}),
            "4k3/8/3(pqPH)4/8/8/8/8/4K3 b - - 0 1");
  // A stack captures en passant; the double-stepped pawn had landed on its
  // own knight, which is uncovered.
  EXPECT_EQ(PlayMoves("4k3/8/8/8/3(Rpb)(NPH)3/8/8/4K3 b - e3 0 1", {"d4xe3"}),
            "4k3/8/8/8/4N3/4(PHRpb)3/8/4K3 w - - 0 2");
  EXPECT_EQ(
      PlayMoves("4k3/8/8/8/3(Rpb)(NPH)3/8/8/4K3 b - e3 0 1", {"d4(1)xe3"}),
      "4k3/8/8/8/3RN3/4(PHpb)3/8/4K3 w - - 0 2");
}

TEST(EnPassantTest, OnlyOnTheVeryNextMove) {
  const std::string after_double =
      PlayMoves("4k3/3pq4/8/4PH3/8/8/8/4K3 b - - 0 1", {"d7-d5"});
  EXPECT_EQ(after_double, "4k3/8/8/3pqPH3/8/8/8/4K3 w - d6 0 2");
  EXPECT_TRUE(IsLegal(after_double, "e5xd6"));
  const std::string later = PlayMoves(after_double, {"e1-e2", "e8-e7"});
  EXPECT_FALSE(IsLegal(later, "e5xd6"));
}

TEST(CastlingTest, MovesKingAndRook) {
  EXPECT_EQ(PlayMoves("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", {"0-0"}),
            "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
  EXPECT_EQ(PlayMoves("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", {"O-O-O"}),
            "2kr3r/8/8/8/8/8/8/R3K2R w KQ - 1 2");
  EXPECT_EQ(PlayMoves("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", {"e1-g1"}),
            "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
}

TEST(CastlingTest, CoveredRookKeepsTheRightAndCastlesWhenUncovered) {
  // A black knight lands on h1 (right kept), then leaves; White castles.
  const std::string tfen = PlayMoves("4k3/8/8/8/8/6n1/8/R3K2R b KQ - 0 1",
                                     {"g3xh1", "a1-a2", "h1(1)-f2"});
  EXPECT_EQ(tfen, "4k3/8/8/8/8/8/R4n2/4K2R w K - 2 3");
  EXPECT_TRUE(IsLegal(tfen, "0-0"));
  // While covered, the rook cannot castle.
  EXPECT_FALSE(IsLegal("4k3/8/8/8/8/8/8/R3K2(Rn) w KQ - 0 1", "0-0"));
}

TEST(CastlingTest, RightLostWhenTheRookSquareMovesWhole) {
  // The knight that covers h1 carries the whole stack (with the rook) away.
  EXPECT_EQ(PlayMoves("4k3/8/8/8/8/8/8/R3K2(Rn) b KQ - 0 1", {"h1-g3"}),
            "4k3/8/8/8/8/6(Rn)1/8/R3K3 w Q - 1 2");
  // The king moving loses both.
  EXPECT_EQ(PlayMoves("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", {"e1-e2"}),
            "4k3/8/8/8/8/8/4K3/R6R b - - 1 1");
}

TEST(ClockTest, ResetsOnPawnMovesAndCapturesOnly) {
  // Own stacking does not reset.
  EXPECT_EQ(PlayMoves("4k3/8/8/8/8/8/4R3/4K3 w - - 7 1", {"e1xe2"}),
            "4k3/8/8/8/8/8/4(RK)3/8 b - - 8 1");
  // A move onto an enemy-topped square does.
  EXPECT_EQ(PlayMoves("4k3/8/8/8/8/8/4r3/4K3 w - - 7 1", {"e1xe2"}),
            "4k3/8/8/8/8/8/4(rK)3/8 b - - 0 1");
  // A pawn-topped unit does, even stepping onto its own piece.
  EXPECT_EQ(PlayMoves("4k3/8/8/8/8/4N3/4PH3/4K3 w - - 7 1", {"e2xe3"}),
            "4k3/8/8/8/8/4(NPH)3/8/4K3 b - - 0 1");
  // A promoted pawn is no pawn.
  EXPECT_EQ(PlayMoves("4k3/8/8/8/8/8/8/+R3K3 w - - 7 1", {"a1-a5"}),
            "4k3/8/8/+R7/8/8/8/4K3 b - - 8 1");
}

// Issue 22, item 7: the counters stop at TFEN's largest value instead of
// wrapping (a wrapped clock forgot the fifty-move rule; a wrapped move
// number did not read back).
TEST(ClockTest, CountersStopAt65535) {
  EXPECT_EQ(PlayMoves("k7/8/1K6/8/8/8/8/7R w - - 65535 9", {"h1-h2"}),
            "k7/8/1K6/8/8/8/7R/8 b - - 65535 9");
  EXPECT_EQ(PlayMoves("k7/8/1K6/8/8/8/8/7R b - - 3 65535", {"a8-b8"}),
            "1k6/8/1K6/8/8/8/8/7R w - - 4 65535");
}

TEST(LegalityTest, NothingOnAKing) {
  EXPECT_FALSE(IsLegal("4k3/8/8/8/8/8/8/4K2R w - - 0 1", "h1xe1"));
  EXPECT_FALSE(IsLegal("4k3/8/8/8/8/8/8/4R2K w - - 0 1", "e1xe8"));
}

TEST(LegalityTest, KingMayNotStackOntoAnAttackedSquare) {
  // d2 holds a white rook but a black pawn on c3 attacks it: the king may not
  // step there, even onto its own piece.
  EXPECT_FALSE(IsLegal("4k3/8/8/8/8/2pr5/3R4/4K3 w - - 0 1", "e1xd2"));
  EXPECT_TRUE(IsLegal("4k3/8/8/8/8/8/3R4/4K3 w - - 0 1", "e1xd2"));
}

TEST(LegalityTest, PawnsMoveForwardOntoOwnPiecesOnly) {
  EXPECT_TRUE(IsLegal("4k3/8/8/8/8/4N3/4PH3/4K3 w - - 0 1", "e2-e3"));
  EXPECT_FALSE(IsLegal("4k3/8/8/8/8/4n3/4PH3/4K3 w - - 0 1", "e2-e3"));
  EXPECT_FALSE(IsLegal("4k3/8/8/8/8/3N4/4PH3/4K3 w - - 0 1", "e2xd3"));
  EXPECT_TRUE(IsLegal("4k3/8/8/8/8/3n4/4PH3/4K3 w - - 0 1", "e2xd3"));
  // Double step over an occupied square is not allowed, onto own is.
  EXPECT_FALSE(IsLegal("4k3/8/8/8/8/4N3/4PH3/4K3 w - - 0 1", "e2-e4"));
  EXPECT_TRUE(IsLegal("4k3/8/8/8/4N3/8/4PH3/4K3 w - - 0 1", "e2-e4"));
}

TEST(LegalityTest, UncoveredEnemyOnTheLastRankPromotesAndChecks) {
  // a1 = pr R (a black rook-pawn under a white rook, on Black's last rank).
  // If the white rook leaves alone, the black pawn is uncovered and becomes
  // a rook at once, attacking e1 along the rank: illegal.
  EXPECT_FALSE(IsLegal("4k3/8/8/8/8/8/8/(prR)3K3 w - - 0 1", "a1(1)-a5"));
  EXPECT_TRUE(IsLegal("4k3/8/8/8/8/8/8/(prR)3K3 w - - 0 1", "a1-a5"));
}

std::unique_ptr<GameState> StateOf(std::string_view tfen) {
  auto game = MakeGame("tavreli");
  EXPECT_TRUE(game.ok());
  auto state = (*game)->NewStateFromText(tfen);
  EXPECT_TRUE(state.ok()) << state.status().message();
  return *std::move(state);
}

void PlayAll(GameState& state, std::initializer_list<std::string_view> moves) {
  for (std::string_view text : moves) {
    absl::StatusOr<Move> move = state.ParseMove(text);
    ASSERT_TRUE(move.ok()) << text << ": " << move.status().message();
    state.Play(*move);
  }
}

TEST(ResultTest, CheckmateAndStalemate) {
  EXPECT_EQ(StateOf("k7/1Q6/2K5/8/8/8/8/8 b - - 0 1")->Result(),
            (GameResult{Outcome::kLoss, tavreli::kCheckmate}));
  EXPECT_EQ(StateOf("k7/2Q5/8/8/8/8/8/7K b - - 0 1")->Result(),
            (GameResult{Outcome::kDraw, tavreli::kStalemate}));
  EXPECT_FALSE(StateOf(kStartTfen)->Result().IsOver());
}

TEST(ResultTest, ThreefoldRepetition) {
  auto state = StateOf(kStartTfen);
  PlayAll(*state, {"g1-f3", "g8-f6", "f3-g1", "f6-g8"});
  EXPECT_FALSE(state->Result().IsOver());  // second occurrence
  PlayAll(*state, {"g1-f3", "g8-f6", "f3-g1"});
  EXPECT_FALSE(state->Result().IsOver());
  PlayAll(*state, {"f6-g8"});
  EXPECT_EQ(state->Result(),
            (GameResult{Outcome::kDraw, Termination::kRepetition}));
}

TEST(ResultTest, FiftyMoveRule) {
  auto state = StateOf("4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
  EXPECT_FALSE(state->Result().IsOver());
  PlayAll(*state, {"a1-a2"});
  EXPECT_EQ(state->Result(),
            (GameResult{Outcome::kDraw, tavreli::kFiftyMoves}));
}

TEST(ResultTest, MateOnTheHundredthPlyIsMate) {
  auto state = StateOf("k7/8/1QK5/8/8/8/8/8 w - - 99 80");
  PlayAll(*state, {"b6-b7"});
  EXPECT_EQ(state->Result().termination, tavreli::kCheckmate);
}

}  // namespace
}  // namespace volkhv::tavreli
