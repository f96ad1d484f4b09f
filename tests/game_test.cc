// Game-neutral pieces: square names, the game registry, game files.
#include "engine/game/square.h"
#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"

namespace volkhv {
namespace {

TEST(SquareTest, NamesAndParsesOnEveryBoardSize) {
  EXPECT_EQ(SquareName(0, 8), "a1");
  EXPECT_EQ(SquareName(63, 8), "h8");
  EXPECT_EQ(SquareName(120, 11), "k11");
  EXPECT_EQ(ParseSquare("k11", 11, 11), 120);
  EXPECT_EQ(ParseSquare("e5", 9, 9), 40);
  EXPECT_FALSE(ParseSquare("i1", 8, 8).has_value());
  EXPECT_FALSE(ParseSquare("a9", 8, 8).has_value());
  EXPECT_FALSE(ParseSquare("a0", 8, 8).has_value());
  EXPECT_FALSE(ParseSquare("A1", 8, 8).has_value());
  EXPECT_FALSE(ParseSquare("a1x", 8, 8).has_value());
  int used = 0;
  EXPECT_EQ(ParseSquarePrefix("a10-a11", 11, 11, &used), 99);
  EXPECT_EQ(used, 3);
}

TEST(RegistryTest, MakesEveryGameAndRejectsUnknownOnes) {
  for (std::string_view name : GameNames()) {
    auto game = MakeGame(name);
    ASSERT_TRUE(game.ok()) << name << ": " << game.status().message();
    EXPECT_EQ((*game)->Info().name, name);
    MoveList moves;
    (*game)->NewInitialState()->LegalMoves(&moves);
    EXPECT_GT(moves.size(), 0);
  }
  auto chess = MakeGame("chess");
  ASSERT_FALSE(chess.ok());
  EXPECT_NE(std::string(chess.status().message()).find("unknown game 'chess'"),
            std::string::npos);
  auto bad_option = MakeGame("tavreli", {{"prince_max_steps", 3}});
  ASSERT_FALSE(bad_option.ok());
  EXPECT_NE(std::string(bad_option.status().message()).find("prince_max_steps"),
            std::string::npos);
}

TEST(GameFileTest, SplitsMoveTextLikePublishedRecords) {
  EXPECT_EQ(SplitMoveText("1. e2-e4 e7-e5 2. d1(2) x d4+ 0-0 {a comment} "
                          "3...g8-f6 ; rest of line\n4.f3(1)-f5? 1-0"),
            (std::vector<std::string>{"e2-e4", "e7-e5", "d1(2)xd4+", "0-0",
                                      "g8-f6", "f3(1)-f5?"}));
}

TEST(GameFileTest, ParsesGamesTagsAndLines) {
  auto games = ParseGameFileText(
      "[Game \"one\"]\n[Plies \"2\"]\n1. e2-e4 e7-e5\n\n"
      "[Game \"two\"]\n[TFEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n"
      "1. e1-e2\n");
  ASSERT_TRUE(games.ok());
  ASSERT_EQ(games->size(), 2u);
  EXPECT_EQ((*games)[0].Tag("Game"), "one");
  EXPECT_EQ((*games)[0].moves.size(), 2u);
  EXPECT_EQ((*games)[1].first_line, 5);
  EXPECT_EQ((*games)[1].Tag("Missing"), "");
  auto game = MakeGame("tavreli");
  const ReplayReport second = ReplayGame(**game, (*games)[1]);
  EXPECT_TRUE(second.ok) << second.error;
  EXPECT_EQ(second.final_position, "4k3/8/8/8/8/8/4K3/8 b - - 1 1");
}

TEST(GameFileTest, RepeatedTagStartsAGameEvenWithoutMoves) {
  auto games = ParseGameFileText("[Game \"a\"]\n\n[Game \"b\"]\n1. e2-e4\n");
  ASSERT_TRUE(games.ok());
  ASSERT_EQ(games->size(), 2u);
  EXPECT_TRUE((*games)[0].moves.empty());
  EXPECT_EQ((*games)[1].Tag("Game"), "b");
}

TEST(GameFileTest, ReportsTheFirstIllegalPlyAndBadTags) {
  auto game = MakeGame("tavreli");
  auto games = ParseGameFileText("1. e2-e4 e7-e5 2. e4-e5 d7-d5\n");
  ASSERT_TRUE(games.ok());
  const ReplayReport report = ReplayGame(**game, (*games)[0]);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.plies, 2);
  EXPECT_NE(report.error.find("ply 3 (e4-e5)"), std::string::npos)
      << report.error;
  auto wrong_count = ParseGameFileText("[Plies \"3\"]\n1. e2-e4 e7-e5\n");
  EXPECT_NE(ReplayGame(**game, (*wrong_count)[0]).error.find("Plies tag"),
            std::string::npos);
  auto malformed = ParseGameFileText("[Game one]\n1. e2-e4\n");
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(std::string(malformed.status().message()).find("line 1"),
            std::string::npos);
  EXPECT_FALSE(ReadGameFile("/nonexistent/file.txt").ok());
}

TEST(StringsTest, CatSplitTrim) {
  EXPECT_EQ(Cat("a", std::string_view("b"), 3, 'c'), "ab3c");
  EXPECT_EQ(Split("a//b", "/", false),
            (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(Split(" a  b ", " ", true),
            (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(Trim("  x y \n"), "x y");
}

}  // namespace
}  // namespace volkhv
