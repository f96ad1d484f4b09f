// `--net auto` (nn/bundled_net.h, nn/evaluator_factory.h) and the trained nets
// that ship in nets/: they load, fit their game, and play far better than a
// random mover. The strength checks guard against a broken or swapped net,
// not against noise: each is a fixed-seed match played one game at a time
// (so the same on every run of one build), with margins a working net clears
// by far.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "gtest/gtest.h"
#include "nn/bundled_net.h"
#include "tests/test_toolkit.h"

namespace volkhv {
namespace {

using ::volkhv::testing::InitNet;
using ::volkhv::testing::RowHasGames;
using ::volkhv::testing::RunResult;
using ::volkhv::testing::ScopedTempDir;
using ::volkhv::testing::Volkhv;

int Lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

TEST(BundledNetTest, VolkhvNetsAloneWhenSetElseBuildInstallAndSource) {
  EXPECT_EQ(nn::BundledNetDirs(std::string("/my/nets"), "/x/build", "/src"),
            std::vector<std::string>{"/my/nets"});
  EXPECT_EQ(
      nn::BundledNetDirs(std::nullopt, "/x/build", "/src"),
      (std::vector<std::string>{"/x/build/../nets",
                                "/x/build/../share/volkhv/nets", "/src/nets"}));
  EXPECT_EQ(nn::BundledNetDirs(std::nullopt, "", ""),
            std::vector<std::string>{});
}

TEST(BundledNetTest, FindsTheFirstFolderHoldingTheGamesNet) {
  ScopedTempDir first, second;
  testing::WriteFile(second.File("tavlei9.net"), "x");
  testing::WriteFile(first.File("tavreli.net"), "x");
  const std::vector<std::string> dirs = {first.path(), second.path()};
  EXPECT_EQ(*nn::FindBundledNet("tavreli", dirs), first.File("tavreli.net"));
  EXPECT_EQ(*nn::FindBundledNet("tavlei9", dirs), second.File("tavlei9.net"));
  const absl::StatusOr<std::string> missing =
      nn::FindBundledNet("tavlei11", dirs);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  const std::string message(missing.status().message());
  EXPECT_NE(message.find(first.File("tavlei11.net")), std::string::npos);
  EXPECT_NE(message.find(second.File("tavlei11.net")), std::string::npos);
  EXPECT_NE(message.find("--net random"), std::string::npos);
}

TEST(BundledNetCliTest, AutoLoadsTheNetOfVolkhvNetsAndSaysWhich) {
  ScopedTempDir nets;
  InitNet("tavreli", nets.File("tavreli.net"));
  const RunResult r =
      Volkhv("analyze --visits 8", "VOLKHV_NETS=" + nets.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "volkhv: net auto: " + nets.File("tavreli.net") +
                       " (tavreli, generation 0)\n");
  EXPECT_NE(r.out.find("root: 8 visits"), std::string::npos) << r.out;
}

TEST(BundledNetCliTest, MissingNetIsOneLineNamingThePathAndTheWayOn) {
  ScopedTempDir nets;
  for (const std::string command :
       {"analyze --visits 8", "play --visits 8",
        "match --player mcts:visits=8 --player random --games 2"}) {
    const RunResult r = Volkhv(command, "VOLKHV_NETS=" + nets.path());
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.err;
    EXPECT_EQ(Lines(r.err), 1) << command << "\n" << r.err;
    EXPECT_NE(r.err.find(nets.File("tavreli.net")), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--net random"), std::string::npos) << r.err;
  }
}

TEST(BundledNetCliTest, DamagedNetIsOneLineNamingThePathAndTheWayOn) {
  ScopedTempDir nets;
  InitNet("tavreli", nets.File("good.net"));
  std::string bytes = testing::Slurp(nets.File("good.net"));
  bytes[bytes.size() / 2] ^= 0x5a;
  testing::WriteFile(nets.File("tavreli.net"), bytes);
  const RunResult r =
      Volkhv("analyze --visits 8", "VOLKHV_NETS=" + nets.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(nets.File("tavreli.net")), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--net random"), std::string::npos) << r.err;
}

TEST(BundledNetCliTest, NetOfAnotherGameIsRefusedNamingBoth) {
  ScopedTempDir nets;
  InitNet("tavlei9", nets.File("tavreli.net"));
  const RunResult r =
      Volkhv("analyze --visits 8", "VOLKHV_NETS=" + nets.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("net is for game tavlei9, not tavreli"),
            std::string::npos)
      << r.err;
  const RunResult file =
      Volkhv("analyze --visits 8 --net " + nets.File("tavreli.net"));
  EXPECT_EQ(file.exit_code, 1) << file.err;
  EXPECT_NE(file.err.find("net is for game tavlei9, not tavreli"),
            std::string::npos)
      << file.err;
}

TEST(BundledNetCliTest, MatchPlayersWithoutANetUseTheMatchesNet) {
  ScopedTempDir nets;
  InitNet("tavreli", nets.File("tavreli.net"));
  const std::string players =
      " --player mcts:visits=4,name=a --player policy:name=b --games 2 "
      "--quiet";
  // --net auto (the default): the bundled net, loaded once for both.
  RunResult r = Volkhv("match" + players, "VOLKHV_NETS=" + nets.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "volkhv: net auto: " + nets.File("tavreli.net") +
                       " (tavreli, generation 0)\n");
  // --net FILE, with the evaluator options every command takes.
  r = Volkhv("match --net " + nets.File("tavreli.net") +
             " --backend eigen --threads 1 --max-batch 8" + players);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("2 games in "), std::string::npos) << r.out;
  r = Volkhv("match --net random" + players, "VOLKHV_NETS=/nonexistent");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Volkhv("match --backend tpu" + players);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("unknown backend 'tpu'"), std::string::npos) << r.err;
}

TEST(BundledNetCliTest, RandomNeedsNoNet) {
  ScopedTempDir nets;
  const RunResult r =
      Volkhv("analyze --visits 8 --net random", "VOLKHV_NETS=" + nets.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// What scripts/strength-ladder.sh prints when it refuses `args`; expects
// its exit status 2.
std::string LadderRefusal(const ScopedTempDir& dir, const std::string& args) {
  const std::string out = dir.File("refusal.txt");
  const std::string command = std::string("bash ") + VOLKHV_SOURCE_DIR +
                              "/scripts/strength-ladder.sh " + args + " >" +
                              out + " 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(command.c_str())), 2) << args;
  return testing::Slurp(out);
}

TEST(StrengthLadderTest, WritesOneRowPerRungWithTheMatchResult) {
  ScopedTempDir dir;
  InitNet("tavlei9", dir.File("gen0.net"));
  const std::string command =
      std::string("bash ") + VOLKHV_SOURCE_DIR +
      "/scripts/strength-ladder.sh tavlei9 " + dir.File("gen0.net") +
      " --rungs random,greedy,ab1 --games 2 --visits 4 --search "
      "leaf_quiescence_weight=0.25 --out " +
      dir.File("ladder.md") + " --binary " + VOLKHV_BINARY + " >" +
      dir.File("stdout.txt") + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0)
      << testing::Slurp(dir.File("stdout.txt"));
  const std::string table = testing::Slurp(dir.File("ladder.md"));
  EXPECT_NE(table.find("| opponent | time control | games | W/D/L (net) |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("MCTS 4 visits per move unless said, with "
                       "leaf_quiescence_weight=0.25; 2 games per rung"),
            std::string::npos)
      << table;
  // Two games per rung: "| random | 4 visits vs random | 2 | W/D/L | ...";
  // the greedy rung is depth 1 without quiescence.
  for (const std::string row :
       {"| random | 4 visits vs random | 2 | ",
        "| alphabeta:depth=1,qdepth=0 | 4 visits vs depth 1, no quiescence "
        "| 2 | ",
        "| alphabeta:depth=1 | 4 visits vs depth 1 | 2 | "}) {
    EXPECT_TRUE(RowHasGames(table, row, 2));
  }
  // Bad input: one line naming the problem, exit 2.
  EXPECT_EQ(LadderRefusal(dir, "chess x"),
            "strength-ladder: unknown game 'chess' (known: tavreli, "
            "tavlei9, tavlei11)\n");
  EXPECT_EQ(LadderRefusal(dir, std::string("tavlei9 auto --rungs ab9 "
                                           "--binary ") +
                                   VOLKHV_BINARY),
            "strength-ladder: unknown rung 'ab9' (known: random, greedy, ab1, "
            "ab2, ab3, time)\n");
  EXPECT_EQ(LadderRefusal(dir, std::string("tavlei9 auto --resume --binary ") +
                                   VOLKHV_BINARY),
            "strength-ladder: --resume needs --pgn-dir (the folder of the "
            "stopped ladder's games)\n");
  const std::string binary = std::string(" --binary ") + VOLKHV_BINARY;
  EXPECT_EQ(LadderRefusal(dir, "tavlei9 auto --search cpuct_init" + binary),
            "strength-ladder: option '--search': 'cpuct_init' is not a "
            "comma-separated list of KEY=VALUE\n");
  EXPECT_EQ(LadderRefusal(dir, "tavlei9 auto --search visits=9" + binary),
            "strength-ladder: option '--search': 'visits' is set by the "
            "ladder (NET, --visits, --movetime)\n");
  EXPECT_EQ(LadderRefusal(dir, "tavlei9 auto --search cpuct=2" + binary),
            "strength-ladder: option '--search': unknown search parameter "
            "'cpuct' (known besides search parameters: net, visits, nodes, "
            "movetime, root, name)\n");
}

// What `search_stats` (scripts/lib/search-stats.sh) prints for `pgn`.
std::string SearchStats(const ScopedTempDir& dir, const std::string& pgn) {
  testing::WriteFile(dir.File("games.pgn"), pgn);
  const std::string command =
      std::string("bash -c 'source ") + VOLKHV_SOURCE_DIR +
      "/scripts/lib/search-stats.sh && search_stats " + dir.File("games.pgn") +
      "' >" + dir.File("stats.txt") + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return testing::Slurp(dir.File("stats.txt"));
}

TEST(StrengthLadderTest, SearchStatsReadTheMoveCommentsOfBothPlayers) {
  ScopedTempDir dir;
  // Visits 100, 300, 200 and 400 (that comment wrapped over two lines):
  // the median of an even count is the upper middle one. Depths 4, 5 and 6
  // (a mate score's among them); a comment of neither kind is skipped.
  EXPECT_EQ(SearchStats(dir,
                        "[Event \"volkhv match\"]\n\n"
                        "1. a1-a2 {+0.05 100v} a7-a6 {-0.10/4} 2. b1-b2\n"
                        "{+0.20 300v} b7-b6 {+M2/6} 3. c1-c2 {+0.30 200v} "
                        "c7-c6 {book} 4. d1-d2 {+0.10\n400v} d7-d6 {-1.25/5} "
                        "1-0\n"),
            "net 300 visits a move (median), alpha-beta depth 5.00 (mean)\n");
  EXPECT_EQ(SearchStats(dir, "1. a1-a2 {+0.05 7v} a7-a6 1-0\n"),
            "net 7 visits a move (median)\n");
  EXPECT_EQ(SearchStats(dir, "1. a1-a2 a7-a6 {+0.50/3} 1-0\n"),
            "alpha-beta depth 3.00 (mean)\n");
  EXPECT_EQ(SearchStats(dir, "1. a1-a2 a7-a6 1-0\n"), "");
}

// The equal-time rung's row says what the time bought: the net's median
// visits a move and alpha-beta's mean depth, read from the rung's games
// (kept in a temporary file without --pgn-dir). At 20 ms a move the net's
// search completes visits on nearly every move even on a loaded machine,
// and the row needs them on one move only.
TEST(StrengthLadderTest, TheEqualTimeRowGivesBothPlayersSearchDepth) {
  ScopedTempDir dir;
  InitNet("tavlei9", dir.File("gen0.net"));
  const std::string command =
      std::string("bash ") + VOLKHV_SOURCE_DIR +
      "/scripts/strength-ladder.sh tavlei9 " + dir.File("gen0.net") +
      " --rungs time --movetime 20 --games 2 --binary " + VOLKHV_BINARY + " >" +
      dir.File("stdout.txt") + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0)
      << testing::Slurp(dir.File("stdout.txt"));
  const std::string table = testing::Slurp(dir.File("stdout.txt"));
  EXPECT_TRUE(std::regex_search(
      table,
      std::regex("\\| alphabeta:movetime=20 \\| 20 ms per move, both; net "
                 "[0-9]+ visits a move \\(median\\), alpha-beta depth "
                 "[0-9]+\\.[0-9]{2} \\(mean\\) \\| 2 \\| [0-9]+/[0-9]+/[0-9]+ "
                 "\\|")))
      << table;
}

// A ladder stopped by a signal prints the rows of the games it finished
// and exits 130; with --pgn-dir, --resume plays only the games left. The
// signal is sent once the rung's game file holds a finished game, and 20
// games take seconds, so the stop always falls inside the rung.
TEST(StrengthLadderTest, AStoppedLadderReportsItsGamesAndResumes) {
  ScopedTempDir dir;
  InitNet("tavlei9", dir.File("gen0.net"));
  const std::string ladder = std::string("bash ") + VOLKHV_SOURCE_DIR +
                             "/scripts/strength-ladder.sh tavlei9 " +
                             dir.File("gen0.net") +
                             " --rungs random,greedy --games 20 --visits 4 "
                             "--concurrency 1 --pgn-dir " +
                             dir.File("pgn") + " --binary " + VOLKHV_BINARY;
  const std::string pgn = dir.File("pgn/random.pgn");
  // A background job of a script ignores SIGINT, so the test sends SIGTERM
  // (the script handles both alike); the wait for the first game is bounded.
  const std::string stopped =
      "bash -c '" + ladder + " >" + dir.File("stopped.txt") + " 2>" +
      dir.File("stopped-err.txt") + " & p=$!; for i in $(seq 1200); do " +
      "grep -q \"^\\[Result\" " + pgn +
      " 2>/dev/null && break; sleep 0.05; done; kill -TERM $p; wait $p; " +
      "exit $?'";
  const int status = std::system(stopped.c_str());
  ASSERT_EQ(WEXITSTATUS(status), 130)
      << testing::Slurp(dir.File("stopped-err.txt"));
  const std::string table = testing::Slurp(dir.File("stopped.txt"));
  const int finished = Count(testing::Slurp(pgn), "[Result ");
  ASSERT_GT(finished, 0);
  ASSERT_LT(finished, 20);
  EXPECT_TRUE(RowHasGames(
      table,
      "| random | 4 visits vs random | " + std::to_string(finished) + " | ",
      finished));
  EXPECT_EQ(table.find("| alphabeta"), std::string::npos) << table;
  EXPECT_NE(testing::Slurp(dir.File("stopped-err.txt"))
                .find("strength-ladder: stopped in rung 'random' (its row "
                      "counts the games finished); the same command with "
                      "--resume continues"),
            std::string::npos);

  const std::string resumed = ladder + " --resume >" + dir.File("resumed.txt") +
                              " 2>" + dir.File("resumed-err.txt");
  ASSERT_EQ(std::system(resumed.c_str()), 0)
      << testing::Slurp(dir.File("resumed-err.txt"));
  const std::string full = testing::Slurp(dir.File("resumed.txt"));
  EXPECT_TRUE(RowHasGames(full, "| random | 4 visits vs random | 20 | ", 20));
  EXPECT_TRUE(RowHasGames(full,
                          "| alphabeta:depth=1,qdepth=0 | 4 visits vs depth 1, "
                          "no quiescence | 20 | ",
                          20));
}

}  // namespace
}  // namespace volkhv
