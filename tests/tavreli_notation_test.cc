// TFEN and move notation: round trips, lenient reading, and rejection of
// malformed input with a message naming the problem.
#include <string>

#include "engine/tavreli/movegen.h"
#include "tests/tavreli_test_util.h"

namespace volkhv::tavreli {
namespace {

TEST(TfenTest, RoundTrips) {
  for (const char* tfen : {
           kStartTfen.data(),
           "4k3/8/8/4(PRn+H)3/8/8/8/4K3 w - - 0 1",
           "(PRR)nb1k3/1(pnpr~r)1pq1pb(pnbB)1/8/1(NpbnPNprrQ)6/4(phq)3/"
           "2PQ1PHN2/2PB2PBPNPR/4KB1R w K - 1 15",
           "4k3/8/8/3pqPH3/8/8/8/4K3 w - d6 0 1",
           "r3k2r/8/8/8/8/8/8/R3K2(Rn) b KQkq - 12 40",
           "1+h2k3/8/8/8/8/8/PR~7/4K3 w - - 0 1",
       }) {
    EXPECT_EQ(ToTfen(PositionOf(tfen)), tfen);
  }
}

TEST(TfenTest, RejectsMalformedInputNamingTheProblem) {
  struct Case {
    const char* tfen;
    const char* message_part;
  };
  const Case kCases[] = {
      {"", "6 space-separated fields"},
      {"8/8/8/8/8/8/8 w - - 0 1", "7 ranks"},
      {"4k3/8/8/8/8/8/8/4K2 w - - 0 1", "rank 1: 7 squares"},
      {"4k3/8/8/8/8/8/8/4K4 w - - 0 1", "more than 8 squares"},
      {"4k3/8/8/8/8/8/8/4KX2 w - - 0 1", "rank 1, file f: unknown token 'X'"},
      {"4k3/8/8/8/8/8/8/4KH2 w - - 0 1", "unknown token 'H'"},
      {"4k3/8/8/8/8/8/8/4KP2 w - - 0 1", "unknown pawn token"},
      {"4k3/8/8/8/8/8/8/4KPr2 w - - 0 1", "unknown pawn token 'Pr'"},
      {"4k3/8/8/8/8/8/8/4K+K2 w - - 0 1", "unknown promoted piece"},
      {"4k3/8/8/8/8/8/8/4(K)3 w - - 0 1", "two or more pieces"},
      {"4k3/8/8/8/8/8/8/3K(RN w - - 0 1", "missing ')'"},
      {"4k3/8/8/8/8/8/8/4(KR)3 w - - 0 1", "a piece stands on a king"},
      {"4k3/8/8/8/8/8/8/8 w - - 0 1", "0 white kings"},
      {"4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "2 white kings"},
      {"4k3/8/8/8/8/8/8/3(+RN)K3 w - - 0 1", "promoted piece below the top"},
      {"PR3k3/8/8/8/8/8/8/4K3 w - - 0 1", "unpromoted pawn on top on its last"},
      {"4k3/8/8/8/8/PR~7/8/4K3 w - - 0 1", "'~' on a pawn"},
      {"4k3/8/8/8/8/8/8/4K3 w K - 0 1", "unpromoted rook at the bottom of h1"},
      {"4k3/8/8/8/8/8/8/3K3R w K - 0 1", "king alone on e1"},
      {"4k3/8/8/8/8/8/8/4K2(NR) w K - 0 1", "rook at the bottom of h1"},
      {"4k3/8/8/8/8/8/8/4K3 w X - 0 1", "TFEN castling: unknown right 'X'"},
      {"4k3/8/8/8/8/8/8/4K3 x - - 0 1", "TFEN side to move"},
      {"4k3/8/8/8/8/8/8/4K3 w - e4 0 1", "not on rank 6"},
      {"4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "no pawn of the side that just moved"},
      {"4k3/8/4N3/4pq3/8/8/8/4K3 w - e6 0 1", "e6 is not empty"},
      {"4k3/8/8/8/8/8/8/4K3 w - z9 0 1", "not a square"},
      {"4k3/8/8/8/8/8/8/4K3 w - - -1 1", "TFEN halfmove clock"},
      {"4k3/8/8/8/8/8/8/4K3 w - - 0 0", "TFEN fullmove number"},
      {"4k3/8/8/8/8/8/8/4K3 w - - x 1", "TFEN halfmove clock"},
  };
  for (const Case& c : kCases) {
    absl::StatusOr<Position> pos = ParseTfen(c.tfen);
    ASSERT_FALSE(pos.ok()) << c.tfen;
    EXPECT_NE(std::string(pos.status().message()).find(c.message_part),
              std::string::npos)
        << c.tfen << " -> " << pos.status().message();
  }
}

TEST(TfenTest, RejectsStacksTallerThan32) {
  std::string stack = "(";
  for (int i = 0; i < 33; ++i) stack += "N";
  stack += ")";
  absl::StatusOr<Position> pos =
      ParseTfen("4k3/8/8/8/8/8/8/" + stack + "3K3 w - - 0 1");
  ASSERT_FALSE(pos.ok());
  EXPECT_NE(std::string(pos.status().message()).find("33 pieces"),
            std::string::npos);
}

TEST(TfenTest, AcceptsTheSideNotToMoveInCheck) {
  EXPECT_TRUE(ParseTfen("4k3/8/8/8/8/8/8/4K2r b - - 0 1").ok());
}

TEST(MoveNotationTest, WritesCanonicalForms) {
  const Position start = PositionOf(kStartTfen);
  EXPECT_EQ(MoveToString(start, MakeMove(12, 28, 1)), "e2-e4");
  EXPECT_EQ(MoveToString(start, MakeMove(3, 11, 1)), "d1xd2");
  const Position stacked = PositionOf("4k3/8/8/8/3(nPRbR)4/8/8/K7 w - - 0 1");
  EXPECT_EQ(MoveToString(stacked, MakeMove(27, 59, 2)), "d4(2)-d8");
  EXPECT_EQ(MoveToString(stacked, MakeMove(27, 59, 4)), "d4-d8");
  const Position castle = PositionOf("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  EXPECT_EQ(MoveToString(castle, MakeMove(4, 6, 1)), "0-0");
  EXPECT_EQ(MoveToString(castle, MakeMove(4, 2, 1)), "0-0-0");
  const Position ep = PositionOf("4k3/8/8/3pqPH3/8/8/8/4K3 w - d6 0 1");
  EXPECT_EQ(MoveToString(ep, MakeMove(36, 43, 1)), "e5xd6");
}

TEST(MoveNotationTest, EveryLegalMoveRoundTrips) {
  for (const char* tfen :
       {kStartTfen.data(), "4k3/8/8/8/3(nPRbR)4/8/8/K7 w - - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "4k3/8/8/8/3(Rpb)(NPH)3/8/8/4K3 b - e3 0 1",
        "(PRR)nb1k3/1(pnpr~r)1pq1pb(pnbB)1/8/1(NpbnPNprrQ)6/4(phq)3/"
        "2PQ1PHN2/2PB2PBPNPR/4KB1R w K - 1 15"}) {
    const Position pos = PositionOf(tfen);
    MoveList moves;
    GenerateLegalMoves(pos, &moves);
    for (Move m : moves) {
      const std::string text = MoveToString(pos, m);
      absl::StatusOr<Move> back = ParseMove(pos, text);
      ASSERT_TRUE(back.ok()) << text << ": " << back.status().message();
      EXPECT_EQ(*back, m) << text;
    }
  }
}

TEST(MoveNotationTest, ReadsLenientForms) {
  const Position start = PositionOf(kStartTfen);
  const Move d1xd2 = MakeMove(3, 11, 1);
  for (const char* text : {"d1xd2", "d1-d2", "d1 x d2", "d1(1)-d2", "d1-d2+",
                           "d1-d2x", "d1-d2?!", "d1-d2*", " d1 - d2 "}) {
    absl::StatusOr<Move> m = ParseMove(start, text);
    ASSERT_TRUE(m.ok()) << text << ": " << m.status().message();
    EXPECT_EQ(*m, d1xd2) << text;
  }
  const Position stacked = PositionOf("4k3/8/8/8/3(nPRbR)4/8/8/K7 w - - 0 1");
  EXPECT_EQ(*ParseMove(stacked, "d4(4)-d8"), MakeMove(27, 59, 4));
  EXPECT_EQ(*ParseMove(stacked, "d4 (2) - d8"), MakeMove(27, 59, 2));
  const Position castle = PositionOf("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
  EXPECT_EQ(*ParseMove(castle, "O-O"), MakeMove(4, 6, 1));
  EXPECT_EQ(*ParseMove(castle, "O-O-O"), MakeMove(4, 2, 1));
}

TEST(MoveNotationTest, RejectsWithReasons) {
  struct Case {
    const char* tfen;
    const char* move;
    const char* message_part;
  };
  const Case kCases[] = {
      {kStartTfen.data(), "e2e4", "expected '-' or 'x'"},
      {kStartTfen.data(), "z2-e4", "expected a source square"},
      {kStartTfen.data(), "e2-e9", "expected a destination square"},
      {kStartTfen.data(), "e2(0)-e4", "(k)"},
      {kStartTfen.data(), "e2(x)-e4", "must be a number"},
      {kStartTfen.data(), "e3-e4", "e3 is empty"},
      {kStartTfen.data(), "e7-e5", "belongs to the opponent"},
      {kStartTfen.data(), "e2(2)-e4", "holds only 1 piece"},
      {kStartTfen.data(), "e2-e5", "the pawn on e2 cannot move to e5"},
      {kStartTfen.data(), "0-0", "castling is not allowed"},
      {"4k3/8/8/8/8/8/8/4K2R w - - 0 1", "h1xe1", "placed on the King"},
      {"7k/8/8/8/3(nPRbR)4/8/8/K7 w - - 0 1", "d4(1)-d8",
       "leaves the King in check"},
      {kStartTfen.data(), "", "expected a source square"},
  };
  for (const Case& c : kCases) {
    absl::StatusOr<Move> m = ParseMove(PositionOf(c.tfen), c.move);
    ASSERT_FALSE(m.ok()) << c.move;
    EXPECT_NE(std::string(m.status().message()).find(c.message_part),
              std::string::npos)
        << c.move << " -> " << m.status().message();
  }
}

}  // namespace
}  // namespace volkhv::tavreli
