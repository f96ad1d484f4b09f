// End-to-end tests of the `volkhv` binary: outputs, exit codes, and one-line
// errors for bad input.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "nn/weights_file.h"
#include "tests/game_fixtures.h"
#include "tests/test_toolkit.h"

namespace {

using ::volkhv::Cat;
using ::volkhv::testing::Contains;
using ::volkhv::testing::EncoderFor;
using ::volkhv::testing::FreshPath;
using ::volkhv::testing::RunResult;
using ::volkhv::testing::TempPath;
using ::volkhv::testing::Volkhv;
using ::volkhv::testing::WriteFile;

std::string LastLine(const std::string& text) {
  std::string trimmed = text;
  while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
  return trimmed.substr(trimmed.rfind('\n') + 1);
}

int LineCount(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = TempPath(name);
  WriteFile(path, content);
  return path;
}

TEST(CliTest, VersionNamesTheSourceCommit) {
  const RunResult r = Volkhv("--version");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // "volkhv 1a2b3c4d5e6f\n" (or "-dirty", or "unknown" outside git).
  ASSERT_TRUE(r.out.starts_with("volkhv ")) << r.out;
  const std::string version = r.out.substr(7, r.out.size() - 8);
  EXPECT_FALSE(version.empty());
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_EQ(version.find_first_not_of("0123456789abcdef-dirtyunknowg"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(Volkhv("version").out, r.out);
}

TEST(CliTest, PerftPrintsTheTotalLast) {
  const RunResult r = Volkhv("perft --game tavreli --depth 3");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LastLine(r.out), "Nodes searched: 68299");
}

TEST(CliTest, PerftDivideListsSortedMoves) {
  const RunResult r = Volkhv("perft --depth 2 --divide");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 12), "a1xa2: 39\na1");
  EXPECT_NE(r.out.find("d1xd2: 38\n"), std::string::npos);
  EXPECT_NE(r.out.find("Moves: 39\n"), std::string::npos);
  EXPECT_EQ(LastLine(r.out), "Nodes searched: 1519");
}

TEST(CliTest, PerftFromAGivenPosition) {
  const RunResult r = Volkhv(
      "perft --position '4k3/8/8/3pqPH3/8/8/8/4K3 w - d6 0 1' --depth 2");
  EXPECT_EQ(LastLine(r.out), "Nodes searched: 38");
}

// K e3 alone with t h8, defenders to move: 16 moves, 11 with the prince
// limited to 3 squares (tavlei_test.cc, TavleiMoveTest.PrinceMaxSteps).
TEST(CliTest, GameOptionsAndTheirAliases) {
  const std::string perft =
      "perft --game tavlei9 --position '9/7t1/9/9/9/9/4K4/9/9 d 0' --depth 1";
  EXPECT_EQ(LastLine(Volkhv(perft).out), "Nodes searched: 16");
  EXPECT_EQ(LastLine(Volkhv(perft + " --game-option prince_max_steps=3").out),
            "Nodes searched: 11");
  EXPECT_EQ(LastLine(Volkhv(perft + " --prince-max-steps 3").out),
            "Nodes searched: 11");
  // The alias wins over --game-option; the last --game-option of a key wins.
  EXPECT_EQ(LastLine(Volkhv(perft + " --game-option prince_max_steps=1"
                                    " --prince-max-steps 3")
                         .out),
            "Nodes searched: 11");
  EXPECT_EQ(LastLine(Volkhv(perft + " --game-option prince_max_steps=1"
                                    " --game-option prince_max_steps=3")
                         .out),
            "Nodes searched: 11");
  const RunResult help = Volkhv("perft --help");
  EXPECT_NE(help.out.find("--game-option KEY=VALUE"), std::string::npos);
  EXPECT_NE(help.out.find("--prince-max-steps N"), std::string::npos);
}

TEST(CliTest, BadInputGetsOneLineAndTheRightExitCode) {
  struct Case {
    const char* args;
    int exit_code;
    const char* message_part;
  };
  const Case kCases[] = {
      {"perft --position '4k3/8/8/8/8/8/8/4KX2 w - - 0 1' --depth 1", 1,
       "rank 1, file f: unknown token 'X'"},
      {"perft", 2, "--depth is required"},
      {"perft --depth x", 2, "'--depth'"},
      {"perft --depth 2 --bogus", 2, "unknown option '--bogus'"},
      {"perft --game chess --depth 1", 2, "unknown game 'chess'"},
      {"perft --game tavreli --prince-max-steps 3 --depth 1", 2,
       "prince_max_steps"},
      {"perft --game tavreli --game-option prince_max_steps=3 --depth 1", 2,
       "prince_max_steps"},
      {"perft --game tavlei9 --game-option prince_max_steps=101 --depth 1", 2,
       "prince_max_steps=101 is not in [0, 100]"},
      {"perft --game tavlei9 --game-option prince_max_steps --depth 1", 2,
       "is not KEY=INTEGER"},
      {"show --moves 'e2-e4 e2-e4'", 1, "ply 2"},
      {"validate", 2, "expected one FILE"},
      {"validate /nonexistent/games.txt", 1, "cannot open"},
      {"frobnicate", 2, "unknown command"},
      {"bench nothing", 2, "unknown benchmark"},
  };
  for (const Case& c : kCases) {
    const RunResult r = Volkhv(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message_part), std::string::npos) << c.args << "\n"
                                                             << r.err;
    EXPECT_GE(LineCount(r.err), 1) << c.args;
    EXPECT_EQ(r.err.find("volkhv"), 0u) << c.args << "\n" << r.err;
  }
}

// `volkhv elo` on a match's game file prints the match's own table; two
// files of different games, a missing file and a player not in the games
// are one-line errors.
TEST(CliTest, EloReadsBackTheMatchsResult) {
  ::volkhv::testing::ScopedTempDir dir;
  const std::string games = dir.File("games.pgn");
  const RunResult match = Volkhv(
      "match --game tavlei9 --player random --player alphabeta:depth=1 "
      "--games 6 --random-plies 4 --seed 3 --max-plies 200 --quiet "
      "--pgn-out " +
      games);
  ASSERT_EQ(match.exit_code, 0) << match.err;
  const RunResult elo = Volkhv("elo " + games);
  ASSERT_EQ(elo.exit_code, 0) << elo.err;
  // The match's report from "random vs" to its timing line.
  const size_t from = match.out.find("random vs alphabeta:depth=1: 6 games");
  const size_t to = match.out.find("6 games in ");
  ASSERT_NE(from, std::string::npos) << match.out;
  ASSERT_NE(to, std::string::npos) << match.out;
  EXPECT_EQ(elo.out, "Games: tavlei9, 1 file\n" +
                         match.out.substr(from, to - from) +
                         "6 games read from game files\n");
  EXPECT_NE(Volkhv("elo " + games + " --player alphabeta:depth=1")
                .out.find("alphabeta:depth=1 vs random: 6 games"),
            std::string::npos);

  const std::string tavreli = dir.File("tavreli.pgn");
  ASSERT_EQ(Volkhv("match --player random --player random --games 2 --seed 1 "
                   "--max-plies 20 --quiet --pgn-out " +
                   tavreli)
                .exit_code,
            0);
  struct Case {
    std::string args;
    int exit_code;
    std::string message;
  };
  const Case kCases[] = {
      {"elo", 2, "volkhv elo: expected one or more game files"},
      {"elo " + games + " " + tavreli, 1,
       Cat("volkhv elo: ", tavreli, " holds tavreli games; ", games,
           " holds tavlei9 games")},
      {"elo " + dir.File("none.pgn"), 1,
       Cat("volkhv elo: ", dir.File("none.pgn"), ": no such file")},
      {"elo " + games + " --player nobody", 1,
       "volkhv elo: no game of 'nobody' in the game files; they hold random, "
       "alphabeta:depth=1"},
      {"elo " + games + " --sprt elo0=0,elo2=5", 2,
       "volkhv elo: SPRT: unknown key 'elo2'"},
  };
  for (const Case& c : kCases) {
    const RunResult r = Volkhv(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.err.starts_with(c.message)) << c.args << "\n" << r.err;
    EXPECT_EQ(LineCount(r.err), 1) << r.err;
  }
}

TEST(CliTest, ValidateThePublishedGames) {
  const RunResult r =
      Volkhv(std::string("validate --game tavreli ") + VOLKHV_TEST_DATA_DIR +
             "/tavreli-published-games.txt");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(LastLine(r.out), "20 of 20 games legal");
  EXPECT_NE(r.out.find("game 2 ("), std::string::npos);
  EXPECT_NE(r.out.find("OK, 39 plies, checkmate"), std::string::npos);
}

TEST(CliTest, ValidateReportsTheFirstIllegalPly) {
  const std::string path = WriteTemp(
      "bad_games.txt",
      "[Game \"good\"]\n1. e2-e4 e7-e5\n\n[Game \"bad\"]\n1. e2-e4 e7-e5 2. "
      "e4-e5\n");
  const RunResult r = Volkhv("validate " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("game 1 (good): OK, 2 plies, ongoing"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("game 2 (bad): FAILED at ply 3 (e4-e5): illegal move"),
            std::string::npos)
      << r.out;
}

TEST(CliTest, ValidateSurvivesGarbage) {
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919) % 256);
  const RunResult r = Volkhv("validate " + WriteTemp("garbage.bin", garbage));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
}

TEST(CliTest, ShowDrawsStacksAndStatus) {
  const RunResult r = Volkhv("show --moves '1. e2-e4 d7-d5 2. e4xd5 d8xd5'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("d5: pq PH q"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("To move: white"), std::string::npos);
  EXPECT_NE(r.out.find("Status: ongoing"), std::string::npos);
  const RunResult mate =
      Volkhv("show --position 'k7/1Q6/2K5/8/8/8/8/8 b - - 0 1'");
  EXPECT_NE(mate.out.find("Legal moves: 0\nStatus: checkmate"),
            std::string::npos)
      << mate.out;
}

TEST(CliTest, BenchAndDemoRun) {
  const RunResult bench = Volkhv("bench movegen --depth 2 --runs 1");
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_NE(bench.out.find("tavreli start perft(2) = 1519 nodes"),
            std::string::npos)
      << bench.out;
  const RunResult demo = Volkhv("demo --seed 3 --perft-depth 2");
  EXPECT_EQ(demo.exit_code, 0) << demo.err;
  EXPECT_NE(demo.out.find("perft(2) = 1519"), std::string::npos);
  EXPECT_NE(demo.out.find(" plies: "), std::string::npos);
}

TEST(CliTest, BenchQuiescenceComparesWithTheReference) {
  const std::string games =
      std::string(VOLKHV_TEST_DATA_DIR) + "/tavreli-published-games.txt";
  const RunResult r = Volkhv("bench quiescence --game-file " + games +
                             " --depths 6+6,0+0 --reference 6+6 "
                             "--max-leaves 40");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tavreli: 40 leaves; reference 6+6 plies"),
            std::string::npos)
      << r.out;
  // The reference against itself is exact; no quiescence at all is not.
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(\| 6\+6 \| \d+ \| 0\.0 \| 0\.0000 \| 0\.0 % \|)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(\| 0\+0 \| \d+ \| [1-9]\d*\.\d \| 0\.\d+ \|)")))
      << r.out;
  const RunResult bad =
      Volkhv("bench quiescence --game-file " + games + " --depths 3-8");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("'--depths': '3-8' is not PLIES+RECAPTURES"),
            std::string::npos)
      << bad.err;
}

TEST(CliTest, SelfplayRecordsShowStatsAndValidate) {
  const std::string dir = FreshPath("cli_records");
  const RunResult play = Volkhv("selfplay --game tavlei9 --net random --out " +
                                dir + " --games 2 --parallel 2 --visits 8");
  ASSERT_EQ(play.exit_code, 0) << play.err;
  std::string file;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    file = entry.path().string();
  }
  ASSERT_FALSE(file.empty());
  const RunResult show = Volkhv("records show " + file + " --index 1");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("[Game \"tavlei9\"]"), std::string::npos) << show.out;
  // What `records show` prints, `validate` replays legally.
  const std::string pgn = WriteTemp("shown.pgn", show.out);
  const RunResult validate = Volkhv("validate --game tavlei9 " + pgn);
  EXPECT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  EXPECT_EQ(LastLine(validate.out), "1 of 1 games legal");
  const RunResult stats = Volkhv("records stats " + dir);
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("games: 2 (tavlei9 2)"), std::string::npos)
      << stats.out;
  EXPECT_NE(stats.out.find("1: 100.0000%"), std::string::npos) << stats.out;
  // The games' full searches carry root values to score.
  double mse = -1, cross_entropy = -1;
  const size_t at = stats.out.find("root values against the results (");
  ASSERT_NE(at, std::string::npos) << stats.out;
  ASSERT_EQ(std::sscanf(stats.out.c_str() + at,
                        "root values against the results (%*d full "
                        "searches): W - L mean squared error %lf, WDL "
                        "cross-entropy %lf",
                        &mse, &cross_entropy),
            2)
      << stats.out;
  EXPECT_GE(mse, 0);
  EXPECT_LE(mse, 4);
  EXPECT_GT(cross_entropy, 0);
  EXPECT_EQ(Volkhv("records show " + dir + "/missing.vrec").exit_code, 1);
  EXPECT_EQ(Volkhv("records stats /nonexistent/dir").exit_code, 1);
  // One file (as `match --records-out` writes) as well as a directory.
  const RunResult file_stats = Volkhv("records stats " + file);
  ASSERT_EQ(file_stats.exit_code, 0) << file_stats.err;
  EXPECT_NE(file_stats.out.find("files: 1 read, 0 skipped\ngames: 2 (tavlei9 "
                                "2)"),
            std::string::npos)
      << file_stats.out;
  // Alpha-beta value targets: the games again under the same name, each
  // full search's root WDL replaced, and the run refuses bad input.
  const std::string relabelled = FreshPath("cli_relabelled");
  const RunResult relabel =
      Volkhv("records relabel " + dir + " " + relabelled + " --depth 1");
  ASSERT_EQ(relabel.exit_code, 0) << relabel.err;
  EXPECT_EQ(relabel.out.rfind("relabelled 2 games, ", 0), 0u) << relabel.out;
  EXPECT_NE(relabel.out.find("; alphabeta depth 1, scale 300, mix 1\n"),
            std::string::npos)
      << relabel.out;
  const std::string name = std::filesystem::path(file).filename().string();
  EXPECT_TRUE(std::filesystem::exists(relabelled + "/" + name));
  const RunResult again =
      Volkhv("records relabel " + dir + " " + relabelled + " --depth 1");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out.rfind("relabelled 0 games, 0 positions", 0), 0u)
      << again.out;
  const RunResult same = Volkhv("records relabel " + dir + " " + dir);
  EXPECT_EQ(same.exit_code, 1);
  EXPECT_EQ(same.err, "volkhv records relabel: " + dir +
                          ": the output directory must differ from the "
                          "input's\n");
  const RunResult depth0 =
      Volkhv("records relabel " + dir + " " + relabelled + " --depth 0");
  EXPECT_EQ(depth0.exit_code, 2);
  EXPECT_NE(depth0.err.find("'--depth'"), std::string::npos) << depth0.err;
  // The alpha-beta's move as a share of the policy targets, values kept.
  const RunResult policy =
      Volkhv("records relabel " + dir + " " + FreshPath("cli_policy") +
             " --depth 1 --mix 0 --policy-mix 0.5");
  ASSERT_EQ(policy.exit_code, 0) << policy.err;
  EXPECT_NE(policy.out.find(" s; alphabeta depth 1, policy mix 0.5\n"),
            std::string::npos)
      << policy.out;
  const RunResult nothing = Volkhv("records relabel " + dir + " " +
                                   FreshPath("cli_nothing") + " --mix 0");
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("nothing changes"), std::string::npos)
      << nothing.err;
  // The [Game "tavlei9"] tag chooses the game when --game is not given.
  const RunResult tagged = Volkhv("validate " + pgn);
  EXPECT_EQ(tagged.exit_code, 0) << tagged.out << tagged.err;
  EXPECT_EQ(LastLine(tagged.out), "1 of 1 games legal");
  const RunResult analyzed =
      Volkhv("analyze --net random --visits 4 --game-file " + pgn);
  EXPECT_EQ(analyzed.exit_code, 0) << analyzed.out << analyzed.err;
  EXPECT_NE(analyzed.out.find("Ply 0: Position 3ttt3/4t4/4T4/"),
            std::string::npos)
      << analyzed.out;
  // Issue 19, item 5: a --game that contradicts the tag is an error naming
  // both, in validate and in analyze --game-file.
  const RunResult contradicted = Volkhv("validate --game tavreli " + pgn);
  EXPECT_EQ(contradicted.exit_code, 1);
  EXPECT_NE(contradicted.out.find("FAILED: --game tavreli contradicts the "
                                  "game's [Game \"tavlei9\"] tag"),
            std::string::npos)
      << contradicted.out;
  const RunResult analyze_contradicted = Volkhv(
      "analyze --net random --visits 4 --game tavreli --game-file " + pgn);
  EXPECT_EQ(analyze_contradicted.exit_code, 1);
  EXPECT_NE(analyze_contradicted.err.find("--game tavreli contradicts the "
                                          "game's [Game \"tavlei9\"] tag"),
            std::string::npos)
      << analyze_contradicted.err;
  // A --game that agrees with the tag is fine.
  EXPECT_EQ(Volkhv("validate --game tavlei9 " + pgn).exit_code, 0);
  const std::string bad_variant = WriteTemp(
      "variant.pgn", "[Game \"tavlei9\"]\n[Variant \"steps\"]\n\ne2-e3\n");
  const RunResult variant = Volkhv("validate " + bad_variant);
  EXPECT_EQ(variant.exit_code, 1);
  EXPECT_NE(variant.out.find("[Variant \"steps\"]: expected"),
            std::string::npos)
      << variant.out;
}

// Issue 22, item 7: the move counters stop at 65535 instead of wrapping.
TEST(CliTest, MoveCountersStopAt65535) {
  RunResult r = Volkhv(
      "show --position 'rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/"
      "RNBQKBNR b KQkq - 0 65535' --moves e7-e6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" w KQkq - 0 65535\n"), std::string::npos) << r.out;
  // What show prints reads back.
  r = Volkhv(
      "show --position 'rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/"
      "RNBQKBNR w KQkq - 0 65535'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Issue 22, item 8: show and perft refuse moves after the end of the game,
// as validate, engine and analysis do.
TEST(CliTest, MovesAfterTheEndOfTheGameAreRefused) {
  const std::string moves =
      "--moves 'b1-c3 b8-c6 c3-b1 c6-b8 b1-c3 b8-c6 c3-b1 c6-b8 b1-c3 b8-c6'";
  for (const std::string command : {"show ", "perft --depth 1 "}) {
    const RunResult r = Volkhv(command + moves);
    EXPECT_EQ(r.exit_code, 1) << command << r.out;
    EXPECT_EQ(r.err,
              "volkhv " + command.substr(0, command.find(' ')) +
                  ": --moves, ply 9 'b1-c3': the game is already over\n");
  }
  // The same moves up to the repetition are fine.
  const RunResult r =
      Volkhv("show --moves 'b1-c3 b8-c6 c3-b1 c6-b8 b1-c3 b8-c6 c3-b1 c6-b8'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Status: draw (repetition)"), std::string::npos)
      << r.out;
}

// Issue 22, item 12: input echoed in an error cannot split its line.
TEST(CliTest, ErrorsEchoingInputStayOnOneLine) {
  const RunResult r =
      Volkhv("show --position \"$(printf 'k7/8/8/8/8/8/8/K7 w\\nX - - 0 1')\"");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(LineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("\\n"), std::string::npos) << r.err;
}

// Issue 22, item 14: inputs are read up to a limit, never until memory runs
// out; binary files must be regular files.
TEST(CliTest, InputFilesAreReadUpToALimit) {
  struct Case {
    const char* args;
    const char* error;  // the whole stderr
  };
  for (const Case& c : {
           Case{"validate /dev/zero",
                "volkhv validate: /dev/zero: larger than the limit of "
                "67108864 bytes for a game file\n"},
           Case{"loop --config /dev/zero --dir /nonexistent/run",
                "volkhv loop: /dev/zero: larger than the limit of 1048576 "
                "bytes for a config file\n"},
           Case{"records show /dev/zero",
                "volkhv records show: /dev/zero: not a regular file (a record "
                "file must be one)\n"},
           Case{"net describe /dev/zero",
                "volkhv net describe: /dev/zero: not a regular file (a "
                "network file must be one)\n"},
       }) {
    SCOPED_TRACE(c.args);
    const RunResult r = Volkhv(c.args);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_EQ(r.err, c.error);
  }
}

// Issue 22, item 14: an unclosed `{` no longer swallows the rest of a game.
TEST(CliTest, AnUnclosedCommentIsAnError) {
  const std::string path =
      WriteTemp("unclosed.txt",
                "[Game \"a\"]\n1. e2-e4 e7-e5\n2. d2-d4 {a comment\nd7-d5 3. "
                "e4xd5\n");
  RunResult r = Volkhv("validate " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "volkhv validate: " + path +
                       ": line 3: a '{' comment is never closed (it would "
                       "hide the rest of the game)\n");
  r = Volkhv("show --moves 'e2-e4 {oops e7-e5'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "volkhv show: --moves: the '{' comment at character 7 is never "
            "closed\n");
}

// Issue 22, item 4: a net too large for a weight file (protobuf's 2 GB) is
// refused before anything is allocated, with one line.
TEST(CliTest, NetInitRefusesANetTooLargeForItsFile) {
  for (const char* size :
       {"blocks: 30 filters: 1024", "blocks: 100 filters: 1024"}) {
    SCOPED_TRACE(size);
    const std::string config = WriteTemp(
        "huge.textproto", std::string("architecture { ") + size + " }\n");
    const std::string out = WriteTemp("huge.net", "");
    std::filesystem::remove(out);
    const RunResult r =
        Volkhv("net init --game tavreli --config " + config + " --out " + out);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_EQ(LineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(" filters need "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("more than the limit of 268435456"), std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

// `volkhv net init` and `net describe`.

TEST(NetCommandsTest, InitThenDescribe) {
  ASSERT_TRUE(std::filesystem::exists(VOLKHV_BINARY))
      << "build the volkhv target first";
  const std::string config = TempPath("tiny.textproto");
  WriteFile(config,
            "architecture { blocks: 2 filters: 16 se_ratio: 4 "
            "value_head_filters: 4 value_hidden: 16 }\nseed: 3\n");
  const std::string net = TempPath("tiny.net");
  RunResult r = Volkhv("net init --game tavreli --config " + config +
                       " --out " + net + " --seed 7");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "2 blocks x 16 filters"));
  absl::StatusOr<volkhv::nn::NetworkWeights> w =
      volkhv::nn::ReadNetworkWeights(net);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->header.provenance().seed(), 7u);
  EXPECT_EQ(w->header.provenance().generation(), 0);
  EXPECT_EQ(w->architecture().policy_head_filters(), 16);
  const absl::Status fits =
      volkhv::nn::CheckNetworkFits(*w, "tavreli", *EncoderFor("tavreli"));
  EXPECT_TRUE(fits.ok()) << fits;

  r = Volkhv("net describe " + net);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* expected :
       {"game:         tavreli", "2 blocks x 16 filters, SE ratio 4",
        "parameters:", "FLOPs:", "generation 0", "seed 7",
        "this build:   compatible", "input.conv.weight", "blocks.0.se.fc2",
        "value.fc2.bias"}) {
    EXPECT_TRUE(Contains(r.out, expected));
  }
  EXPECT_TRUE(Contains(
      r.out, std::to_string(volkhv::nn::ParameterCount(w->architecture()))));

  EXPECT_FALSE(Contains(r.out, "moves left"));
  EXPECT_FALSE(Contains(r.out, "moves-left"));
  EXPECT_FALSE(w->architecture().has_moves_left_head_filters());

  r = Volkhv("net init --game tavlei9 --config " + config + " --out " + net);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Volkhv("net describe " + net);
  EXPECT_TRUE(Contains(r.out, "9x9"));

  // A net with the moves-left head says so.
  WriteFile(config,
            "architecture { blocks: 1 filters: 8 moves_left_head_filters: 4 "
            "moves_left_hidden: 16 }\n");
  r = Volkhv("net init --game tavlei9 --config " + config + " --out " + net);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "moves-left head 4 -> 16 -> 1"));
  r = Volkhv("net describe " + net);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "WDL value; moves left (plies to the end)"));
  EXPECT_TRUE(Contains(r.out, "moves-left head 4 -> 16 -> 1"));
  EXPECT_TRUE(Contains(r.out, "moves_left.fc2.bias"));
  std::filesystem::remove(net);
  std::filesystem::remove(config);
}

TEST(NetCommandsTest, ErrorsAreOneLine) {
  ASSERT_TRUE(std::filesystem::exists(VOLKHV_BINARY));
  const std::string garbage = TempPath("garbage.net");
  WriteFile(garbage, "this is not a network");
  const std::string bad_config = TempPath("bad.textproto");
  WriteFile(bad_config, "architecture { filterz: 3 }\n");
  struct Case {
    std::string args;
    int exit_code;
    const char* message;
  };
  const Case cases[] = {
      {"net describe " + garbage, 1, "not a network file"},
      {"net describe " + TempPath("absent.net"), 1, "cannot open"},
      {"net init --config " + bad_config + " --out " + TempPath("x.net"), 1,
       "filterz"},
      {"net init --game chess --config " + bad_config + " --out x", 2, "chess"},
      {"net init --game tavreli", 2, "--config"},
      {"net frobnicate", 2, "unknown subcommand"},
  };
  for (const Case& c : cases) {
    const RunResult r = Volkhv(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1)
        << c.args << ": " << r.err;
    EXPECT_TRUE(Contains(r.err, c.message)) << c.args;
  }
  EXPECT_FALSE(std::filesystem::exists(TempPath("x.net")));
  std::filesystem::remove(garbage);
  std::filesystem::remove(bad_config);
}

}  // namespace
