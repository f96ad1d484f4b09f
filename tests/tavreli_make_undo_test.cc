// Property tests over random games: Undo restores the exact position and
// hash; the incremental hash equals the hash of the position read back from
// its TFEN; TFEN round-trips at every ply.
#include <random>

#include "engine/games/games.h"
#include "engine/tavreli/movegen.h"
#include "engine/tavreli/tfen.h"
#include "gtest/gtest.h"

namespace volkhv::tavreli {
namespace {

TEST(MakeUndoTest, RandomGamesRestoreExactly) {
  auto game = MakeGame("tavreli");
  ASSERT_TRUE(game.ok());
  std::mt19937_64 rng(20261129);
  int plies_checked = 0;
  int max_height = 0;
  for (int g = 0; g < 60; ++g) {
    std::unique_ptr<GameState> state = (*game)->NewInitialState();
    std::vector<std::string> texts = {state->PositionText()};
    std::vector<uint64_t> hashes = {state->Hash()};
    MoveList moves;
    while (!state->Result().IsOver() && state->PliesPlayed() < 160) {
      state->LegalMoves(&moves);
      state->Play(moves[static_cast<int>(rng() % moves.size())]);
      texts.push_back(state->PositionText());
      hashes.push_back(state->Hash());
      absl::StatusOr<Position> reread = ParseTfen(texts.back());
      ASSERT_TRUE(reread.ok())
          << texts.back() << ": " << reread.status().message();
      EXPECT_EQ(ToTfen(*reread), texts.back());
      EXPECT_EQ(reread->Hash(), hashes.back()) << texts.back();
      for (int s = 0; s < 64; ++s) {
        max_height = std::max(max_height, reread->Height(s));
      }
      ++plies_checked;
    }
    while (state->PliesPlayed() > 0) {
      state->Undo();
      texts.pop_back();
      hashes.pop_back();
      ASSERT_EQ(state->PositionText(), texts.back());
      ASSERT_EQ(state->Hash(), hashes.back());
    }
  }
  EXPECT_GT(plies_checked, 3000);
  EXPECT_GE(max_height, 4);  // the games really built towers
}

TEST(MakeUndoTest, HashDistinguishesStackOrderAndDoubleStepRights) {
  const auto hash = [](std::string_view tfen) {
    return ParseTfen(tfen)->Hash();
  };
  EXPECT_NE(hash("4k3/8/8/8/3(RN)4/8/8/4K3 w - - 0 1"),
            hash("4k3/8/8/8/3(NR)4/8/8/4K3 w - - 0 1"));
  EXPECT_NE(hash("4k3/8/8/8/8/8/PR7/4K3 w - - 0 1"),
            hash("4k3/8/8/8/8/8/PR~7/4K3 w - - 0 1"));
  EXPECT_NE(hash("4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
            hash("4k3/8/8/8/8/8/8/4K3 b - - 0 1"));
  // Clocks are not part of the identity.
  EXPECT_EQ(hash("4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
            hash("4k3/8/8/8/8/8/8/4K3 w - - 9 30"));
  // An en passant square counts only when a capture is possible.
  EXPECT_EQ(hash("4k3/8/8/8/4PH3/8/8/4K3 b - e3 0 1"),
            hash("4k3/8/8/8/4PH3/8/8/4K3 b - - 0 1"));
  EXPECT_NE(hash("4k3/8/8/8/3pbPH3/8/8/4K3 b - e3 0 1"),
            hash("4k3/8/8/8/3pbPH3/8/8/4K3 b - - 0 1"));
}

}  // namespace
}  // namespace volkhv::tavreli
