// Perft of Tavreli positions. Depth-1 counts (and the depth-2 counts marked
// "hand") were derived by hand as the comments show; deeper counts are
// regression values, cross-checked by the independent reference in
// tavreli_differential_test.cc.
#include <cstdint>
#include <vector>

#include "engine/tavreli/movegen.h"
#include "tests/tavreli_test_util.h"

namespace volkhv::tavreli {
namespace {

struct PerftCase {
  const char* name;
  const char* tfen;
  std::vector<uint64_t> counts;  // perft(1), perft(2), ...
};

const PerftCase kCases[] = {
    // perft(1) = 39 (rules §11). perft(2) hand: Black always has 39 replies
    // except after d1xd2 and d1xe2, where the queen now sees d7 / e7 and the
    // king may not step there: 39 * 39 - 2.
    {"start", kStartTfen.data(), {39, 1519, 68299, 3041483}},
    // d4 = n PR b R (bottom to top). The rook has 14 destinations for every
    // count k. k=1 uncovers the black bishop, which would see a1 through c3
    // and b2: all 14 illegal (self-uncovering split). k=2 (white pawn on
    // top), k=3 (black knight: no attack on a1), k=4: 14 each. King: a2 b1
    // b2. 0 + 3 * 14 + 3 = 45.
    {"tall mixed stack", "7k/8/8/8/3(nPRbR)4/8/8/K7 w - - 0 1", {45, 213}},
    // The king tops d4 over a black rook. Alone (k=1) it may only go to the
    // diagonal squares (the uncovered rook sees c4 e4 d3 d5): 4. With the
    // rook (k=2): all 8. Depth 2 hand: after k=1 Black has 3 king moves and
    // 14 rook moves (17, x4); after k=2 only 3 king moves (x8): 68 + 24.
    {"king with a stack", "7k/8/8/8/3(rK)4/8/8/8 w - - 0 1", {12, 92}},
    // White: 5 king moves, e5-e6, and en passant e5xd6. Depth 2 hand: after
    // a king move Black has 5 king moves + d5-d4 (6, x5); after e5-e6 the
    // pawn guards d7 f7: d8 e7 f8 + d5-d4 (4); after e5xd6 the pawn on
    // (pq PH) guards c7 e7: d8 d7 f7 f8 (4). 30 + 4 + 4.
    {"en passant white", "4k3/8/8/3pqPH3/8/8/8/4K3 w - d6 0 1", {7, 38}},
    // Black's pawn tops d4 (over a white rook); White's e-pawn double-stepped
    // onto its own knight. Black: 5 king moves; d4(1)-d3, d4-d3; en passant
    // d4(1)xe3 and d4xe3 (a pawn-topped stack captures): 9.
    {"en passant black by a stack",
     "4k3/8/8/8/3(Rpb)(NPH)3/8/8/4K3 b - e3 0 1",
     {9, 89}},
    // As in chess: king 5 + 2 castlings, rook a1 10, rook h1 9 = 26; depth 2
    // equals chess's 568 (captured rooks are only buried, which changes
    // nothing within two plies).
    {"castling both sides", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", {26, 568}},
    // The f5 rook sees f1 and f2: no 0-0; king d1 d2 e2; 0-0-0; rooks 10+9.
    {"castling through an attacked square",
     "4k3/8/8/5r2/8/8/8/R3K2R w KQ - 0 1",
     {23, 396}},
    // h1's rook is covered by a black knight (the right stays, castling
    // needs the rook on top). King d1 d2 e2 f1 (f2 is knight-attacked),
    // 0-0-0, rook a1 10: 15.
    {"castling with the rook covered",
     "4k3/8/8/8/8/8/8/R3K2(Rn) w KQ - 0 1",
     {15, 122}},
    // In check from e5: only d1 d2 f1 f2; no castling, no block.
    {"castling in check", "4k3/8/8/4r3/8/8/8/R3K2R w KQ - 0 1", {4, 72}},
    // The g5 bishop sees c1 (0-0-0 lands there) and d2. King d1 e2 f1 f2,
    // 0-0, rooks 10 + 9: 24.
    {"castling onto an attacked square",
     "4k3/8/8/6b1/8/8/8/R3K2R w KQ - 0 1",
     {24, 303}},
    // A moved pawn back on a2 ('~'): a2-a3 only, king 5: 6.
    {"tilde pawn", "4k3/8/8/8/8/8/PR~7/4K3 w - - 0 1", {6, 30}},
    // The same pawn never moved: a3 and a4, king 5: 7.
    {"unmoved pawn", "4k3/8/8/8/8/8/PR7/4K3 w - - 0 1", {7, 35}},
    // Checkmate: the b7 queen is guarded by the king, so Black's king may
    // not stack onto it; a7 b8 are covered.
    {"checkmate", "k7/1Q6/2K5/8/8/8/8/8 b - - 0 1", {0, 0}},
    // Stalemate: a7 b7 b8 covered by the queen, no check.
    {"stalemate", "k7/2Q5/8/8/8/8/8/7K b - - 0 1", {0, 0}},
    // Promotion: b7-b8, b7xa8, b7xc8 (each promotes the PN to +N), king 5.
    {"promotion", "r1b1k3/1PN6/8/8/8/8/8/4K3 w - - 0 1", {8, 144}},
};

class PerftTest : public ::testing::TestWithParam<PerftCase> {};

TEST_P(PerftTest, MatchesKnownCounts) {
  const PerftCase& c = GetParam();
  const Position pos = PositionOf(c.tfen);
  for (size_t d = 0; d < c.counts.size(); ++d) {
    EXPECT_EQ(Perft(pos, static_cast<int>(d) + 1), c.counts[d])
        << c.name << " depth " << d + 1;
  }
}

INSTANTIATE_TEST_SUITE_P(Tavreli, PerftTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           for (char& ch : name) {
                             if (!std::isalnum(
                                     static_cast<unsigned char>(ch))) {
                               ch = '_';
                             }
                           }
                           return name;
                         });

TEST(PerftTest, DepthZeroIsOne) {
  EXPECT_EQ(Perft(PositionOf(kStartTfen), 0), 1u);
}

}  // namespace
}  // namespace volkhv::tavreli
