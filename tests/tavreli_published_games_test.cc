// The 20 published tournament games (tests/data, a copy of shared/data) replay
// legally, and each ends in the status pinned here. The five checkmates were
// checked by hand:
//  1. Anderson - Zhmurov: the e1 queen checks g1 along the rank; f1 h1 lie on
//     that rank, f2 (a black rook, guarded by the queen) and g2 h2 are swept
//     by the f2 rook; nothing can reach e1 or f1.
//  2. Karpov - Kupreichik: Nd6 checks f5; e4 (knight), e6 (Bc4), f4 f6
//     (Be5), g4 g5 g6 (Rg8) are covered and e5 is guarded by Nf3; no black
//     piece reaches d6.
//  3. Potapov - Svirin: the black Helgi on g1 checks h3 as a knight; its
//     file and diagonal cover g2 g3 h2 g4, the f2 bishop h4; a knight check
//     cannot be blocked and nothing reaches g1.
// 11. Sokolova - Lartseva: the Helgi on f3 checks g5 as a knight; f4 f5 f6
//     (Helgi's file), h4 (its knight leap), h5 (Bg4), g6 h6 (pawns), and g4
//     is guarded by the Helgi.
// 18. Sokolova - Ershova: the g2 queen checks h2; g1 h1 g3 h3 are its
//     squares, and g2 is guarded by the e4 bishop.
// Games whose record ends with the 'x' mark but are not mate here (4, 5, 6,
// 7, 12, 13, 14, 16, 19, 20) end by resignation in the source; games 8, 9,
// 10, 15, 17 end with the loser in check and resigning.
#include <string>

#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "gtest/gtest.h"

namespace volkhv {
namespace {

struct Expected {
  int plies;
  const char* status;
};

constexpr Expected kExpected[20] = {
    {44, "checkmate"}, {39, "checkmate"}, {52, "checkmate"}, {8, "ongoing"},
    {26, "ongoing"},   {36, "ongoing"},   {42, "ongoing"},   {31, "check"},
    {35, "check"},     {51, "check"},     {34, "checkmate"}, {34, "ongoing"},
    {35, "ongoing"},   {33, "ongoing"},   {42, "check"},     {35, "ongoing"},
    {26, "check"},     {32, "checkmate"}, {23, "ongoing"},   {35, "ongoing"},
};

TEST(PublishedGamesTest, AllTwentyReplayLegallyWithPinnedStatus) {
  auto game = MakeGame("tavreli");
  ASSERT_TRUE(game.ok());
  auto records = ReadGameFile(std::string(VOLKHV_TEST_DATA_DIR) +
                              "/tavreli-published-games.txt");
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 20u);
  for (size_t i = 0; i < records->size(); ++i) {
    const ReplayReport report = ReplayGame(**game, (*records)[i]);
    EXPECT_TRUE(report.ok) << "game " << i + 1 << ": " << report.error;
    EXPECT_EQ(report.plies, kExpected[i].plies) << "game " << i + 1;
    EXPECT_EQ(report.status, kExpected[i].status) << "game " << i + 1;
  }
}

}  // namespace
}  // namespace volkhv
