// Tallying played games (selfplay/match_tally.h): the report of a match's
// game file read back equals the match's own, files add up, an unfinished
// last game is left out without touching the file, and files that are not
// a match's are refused.
#include "selfplay/match_tally.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/games/games.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "selfplay/match_resume.h"
#include "selfplay/player_spec.h"
#include "tests/test_toolkit.h"

namespace volkhv::selfplay {
namespace {

using ::volkhv::testing::TempPath;
using ::volkhv::testing::WriteFile;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A round robin of three Tavlei 9x9 players, 8 games per pairing, written
// to `path`; its report.
MatchReport PlayRoundRobin(const Game& game, const std::string& path) {
  std::vector<std::shared_ptr<PlayerFactory>> players;
  for (const char* spec :
       {"random", "alphabeta:depth=1", "alphabeta:depth=2"}) {
    absl::StatusOr<std::shared_ptr<PlayerFactory>> f =
        MakePlayerFactory(spec, game, {});
    EXPECT_TRUE(f.ok()) << f.status().message();
    players.push_back(*f);
  }
  MatchOptions options;
  options.games = 8;
  options.random_plies = 4;
  options.concurrency = 2;
  options.seed = 5;
  options.adjudication.max_plies = 200;
  options.pgn_path = path;
  absl::StatusOr<MatchReport> report = RunMatch(game, players, options);
  EXPECT_TRUE(report.ok()) << report.status().message();
  return *report;
}

PlayedGames Read(const Game& game, const std::string& path) {
  absl::StatusOr<std::vector<FinishedGame>> games =
      ReadFinishedGames(game, path, UnfinishedLastGame::kSkip);
  EXPECT_TRUE(games.ok()) << games.status().message();
  return {path, games.ok() ? *games : std::vector<FinishedGame>{}};
}

class TallyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    game_ = std::move(MakeGame("tavlei9")).value().release();
    path_ = new std::string(TempPath("tally-round-robin.pgn"));
    played_ = new MatchReport(PlayRoundRobin(*game_, *path_));
  }
  static void TearDownTestSuite() {
    std::remove(path_->c_str());
    delete played_;
    delete path_;
    delete game_;
  }
  static Game* game_;
  static std::string* path_;
  static MatchReport* played_;
};
Game* TallyTest::game_ = nullptr;
std::string* TallyTest::path_ = nullptr;
MatchReport* TallyTest::played_ = nullptr;

TEST_F(TallyTest, AMatchsGameFileGivesTheMatchsReport) {
  absl::StatusOr<MatchReport> tally =
      TallyGames("tavlei9", {Read(*game_, *path_)}, {});
  ASSERT_TRUE(tally.ok()) << tally.status().message();
  EXPECT_TRUE(tally->tally);
  EXPECT_EQ(tally->players, played_->players);
  ASSERT_EQ(tally->pairings.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const PairingStats& t = tally->pairings[i];
    const PairingStats& m = played_->pairings[i];
    SCOPED_TRACE(Cat(m.a, " vs ", m.b));
    EXPECT_EQ(t.a, m.a);
    EXPECT_EQ(t.b, m.b);
    EXPECT_EQ(t.counts.wins, m.counts.wins);
    EXPECT_EQ(t.counts.draws, m.counts.draws);
    EXPECT_EQ(t.counts.losses, m.counts.losses);
    EXPECT_EQ(t.pairs, m.pairs);
    EXPECT_EQ(t.first_mover_points2, m.first_mover_points2);
    EXPECT_EQ(t.games, 8);
    EXPECT_DOUBLE_EQ(t.Elo(true).elo, m.Elo(true).elo);
  }
  // The same pairing table and standings as the match printed: only the
  // last line (timing) differs.
  const std::string match_summary = played_->Summary();
  const std::string tally_summary = tally->Summary();
  EXPECT_EQ(tally_summary.substr(0, tally_summary.rfind("24 games read")),
            match_summary.substr(0, match_summary.rfind("24 games in")));
  EXPECT_NE(tally_summary.find("24 games read from game files\n"),
            std::string::npos)
      << tally_summary;
}

TEST_F(TallyTest, FilesAddUpAndThePlayerNamedTakesTheFirstSide) {
  const PlayedGames file = Read(*game_, *path_);
  TallyOptions options;
  options.player = "alphabeta:depth=2";
  absl::StatusOr<MatchReport> tally =
      TallyGames("tavlei9", {file, file}, options);
  ASSERT_TRUE(tally.ok()) << tally.status().message();
  ASSERT_EQ(tally->players.size(), 3u);
  EXPECT_EQ(tally->players[0], "alphabeta:depth=2");
  EXPECT_EQ(tally->games.size(), 48u);
  // Depth 2 against random: the match's pairing 0 vs 2 from depth 2's side,
  // twice over.
  const PairingStats& m = played_->pairings[1];
  ASSERT_EQ(played_->players[m.b], "alphabeta:depth=2");
  ASSERT_EQ(played_->players[m.a], "random");
  const PairingStats* t = nullptr;
  for (const PairingStats& p : tally->pairings) {
    if (tally->players[p.b] == "random") t = &p;
  }
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->a, 0);
  EXPECT_EQ(t->counts.wins, 2 * m.counts.losses);
  EXPECT_EQ(t->counts.draws, 2 * m.counts.draws);
  EXPECT_EQ(t->counts.losses, 2 * m.counts.wins);
  EXPECT_EQ(t->pairs[0], 2 * m.pairs[4]);
  EXPECT_EQ(t->pairs[4], 2 * m.pairs[0]);
  EXPECT_EQ(t->pairs[2], 2 * m.pairs[2]);
}

TEST_F(TallyTest, AnUnfinishedLastGameIsLeftOutAndTheFileKept) {
  const std::string path = TempPath("tally-unfinished.pgn");
  const std::string full = ReadAll(*path_);
  // The file up to the middle of its last game's move text.
  const size_t last = full.rfind("\n\n[") + 2;
  const size_t moves = full.find("\n\n", last) + 2;
  const std::string cut = full.substr(0, moves + 12);
  WriteFile(path, cut);
  const PlayedGames file = Read(*game_, path);
  EXPECT_EQ(file.games.size(), 23u);
  EXPECT_EQ(ReadAll(path), cut);
  absl::StatusOr<MatchReport> tally = TallyGames("tavlei9", {file}, {});
  ASSERT_TRUE(tally.ok()) << tally.status().message();
  int games = 0, pairs = 0;
  for (const PairingStats& p : tally->pairings) {
    games += p.counts.games();
    for (int x : p.pairs) pairs += x;
  }
  EXPECT_EQ(games, 23);
  EXPECT_EQ(pairs, 11);  // round 23 lost its pair
  std::remove(path.c_str());
}

FinishedGame Game(int round, const std::string& first,
                  const std::string& second, double first_score) {
  FinishedGame g;
  g.round = round;
  g.first_player = first;
  g.second_player = second;
  g.first_score = first_score;
  g.start_position = "start";
  return g;
}

TEST(TallyErrorsTest, FilesThatAreNotAMatchsAreRefused) {
  auto error = [](const std::vector<FinishedGame>& games,
                  const TallyOptions& options = {}) {
    absl::StatusOr<MatchReport> r =
        TallyGames("tavreli", {{"f.pgn", games}}, options);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_EQ(error({Game(1, "a", "b", 1), Game(2, "b", "a", 0.5)}), "ok");
  EXPECT_EQ(error({}), "no finished games in the game files");
  EXPECT_EQ(error({Game(1, "a", "b", 1), Game(2, "a", "b", 0)}),
            "f.pgn: rounds 1 and 2 are not a pair: a vs b, then a vs b: not "
            "the same two players with colours swapped");
  FinishedGame moved = Game(2, "b", "a", 0);
  moved.start_position = "elsewhere";
  EXPECT_EQ(error({Game(1, "a", "b", 1), moved}),
            "f.pgn: rounds 1 and 2 are not a pair: they start from different "
            "positions (start and elsewhere)");
  EXPECT_EQ(error({Game(3, "a", "b", 1), Game(3, "b", "a", 0)}),
            "f.pgn: the game of round 3 is there twice");
  EXPECT_EQ(error({Game(1, "a", "a", 1)}),
            "f.pgn: the game of round 1 has 'a' on both sides");
  TallyOptions named;
  named.player = "c";
  EXPECT_EQ(error({Game(1, "a", "b", 1)}, named),
            "no game of 'c' in the game files; they hold a, b");
  TallyOptions sprt;
  sprt.sprt = SprtParams{};
  EXPECT_EQ(error({Game(1, "a", "b", 1), Game(3, "a", "c", 1)}, sprt),
            "the SPRT needs the games of exactly two players; the game files "
            "hold 3: a, b, c");
}

TEST(TallyErrorsTest, RoundsOfAPairInOtherFilesDoNotPair) {
  absl::StatusOr<MatchReport> r =
      TallyGames("tavreli",
                 {{"one.pgn", {Game(1, "a", "b", 1)}},
                  {"two.pgn", {Game(2, "b", "a", 0)}}},
                 {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->pairings.size(), 1u);
  EXPECT_EQ(r->pairings[0].counts.wins, 2);
  EXPECT_EQ(r->pairings[0].pairs, (PairCounts{0, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace volkhv::selfplay
