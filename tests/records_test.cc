// Game record files: round trip, damaged files skipped with a warning, and
// atomic writes that leave no partial file when the writer is killed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "gtest/gtest.h"
#include "tests/record_fixtures.h"
#include "tests/test_toolkit.h"

namespace volkhv::selfplay {
namespace {

using ::volkhv::testing::FreshDir;

// A legal game of `plies` plies (tests/record_fixtures.h).
proto::GameRecord MakeRecord(const std::string& game_name, int plies) {
  return ::volkhv::testing::PlayedRecord(game_name, plies);
}

TEST(RecordsTest, WriteReadRoundTripIsExact) {
  const std::string dir = FreshDir("roundtrip");
  const std::vector<proto::GameRecord> games = {MakeRecord("tavreli", 30),
                                                MakeRecord("tavlei9", 20)};
  ASSERT_TRUE(WriteGameRecords(dir + "/a.vrec", games).ok());
  auto read = ReadGameRecords(dir + "/a.vrec");
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->size(), 2u);
  for (size_t i = 0; i < games.size(); ++i) {
    EXPECT_EQ((*read)[i].SerializeAsString(), games[i].SerializeAsString());
    int plies = 0;
    EXPECT_TRUE(ReplayRecord((*read)[i], [&](const GameState&, int ply) {
                  plies = ply;
                }).ok());
    EXPECT_EQ(plies, games[i].plies_size());
  }
}

// GameRecord.termination was an enum and is an int32 code: the same bytes
// on the wire, and every code a record holds reads back with the name
// `records show` and `records stats` have always printed.
TEST(RecordsTest, TerminationCodesKeepTheirBytesAndNames) {
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"tavreli", 0, "none"},           {"tavreli", 1, "checkmate"},
      {"tavreli", 2, "stalemate"},      {"tavreli", 3, "repetition"},
      {"tavreli", 4, "fifty moves"},    {"tavlei9", 5, "no legal move"},
      {"tavlei9", 6, "king captured"},  {"tavlei11", 7, "king escaped"},
      {"tavreli", 8, "maximum length"}, {"tavlei9", 9, "resignation"},
  };
  for (const auto& [game, code, name] : cases) {
    proto::GameRecord record;
    record.set_game(game);
    record.set_termination(code);
    // Field 1 (length-delimited), then field 6 as a varint: tag 0x30.
    const std::string expected = std::string("\x0a") + char(game.size()) +
                                 game + std::string("\x30") + char(code);
    EXPECT_EQ(record.SerializeAsString(), expected) << code;
    proto::GameRecord read;
    ASSERT_TRUE(read.ParseFromString(expected));
    EXPECT_EQ(read.termination(), code);
    EXPECT_EQ(TerminationNameOf(read), name) << game << " " << code;
  }
  proto::GameRecord unknown;
  unknown.set_game("tavreli");
  unknown.set_termination(5);  // Tavlei's, not Tavreli's
  EXPECT_EQ(TerminationNameOf(unknown), "termination 5");
}

TEST(RecordsTest, DamagedFilesAreSkippedWithAWarning) {
  const std::string dir = FreshDir("damaged");
  ASSERT_TRUE(
      WriteGameRecords(dir + "/1-good.vrec", {MakeRecord("tavreli", 12)}).ok());
  ASSERT_TRUE(
      WriteGameRecords(dir + "/2-cut.vrec", {MakeRecord("tavreli", 40)}).ok());
  ASSERT_TRUE(
      WriteGameRecords(dir + "/3-flip.vrec", {MakeRecord("tavlei9", 40)}).ok());
  std::filesystem::resize_file(
      dir + "/2-cut.vrec", std::filesystem::file_size(dir + "/2-cut.vrec") / 2);
  {
    std::fstream f(dir + "/3-flip.vrec",
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(20);
    f.put('\x5a');
  }
  std::ofstream(dir + "/4-garbage.vrec") << "not a record file at all";
  std::ofstream(dir + "/notes.txt") << "ignored: not a record file name";
  std::vector<std::string> warnings;
  auto read = ReadRecordDirectory(
      dir, [&](const std::string& w) { warnings.push_back(w); });
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->files_read, 1);
  EXPECT_EQ(read->files_skipped, 3);
  EXPECT_EQ(read->games.size(), 1u);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("2-cut.vrec"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("checksum"), std::string::npos) << warnings[1];
  EXPECT_FALSE(ReadRecordDirectory(dir + "/missing", [](auto&) {}).ok());
}

TEST(RecordsTest, IllegalPlyIsReportedOnReplay) {
  proto::GameRecord record = MakeRecord("tavreli", 4);
  record.mutable_plies(2)->set_move(PackMove(MakeMove(0, 63, 1)));
  const absl::Status s = ReplayRecord(record, [](const GameState&, int) {});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("ply 3"), std::string::npos);
}

// A child writes a large record file over and over; it is killed at random
// moments. The file is then always absent or complete.
TEST(RecordsTest, KilledWriterLeavesNoPartialFile) {
  const std::string dir = FreshDir("killed");
  std::vector<proto::GameRecord> games;
  for (int i = 0; i < 200; ++i) games.push_back(MakeRecord("tavreli", 60));
  const std::string path = dir + "/games.vrec";
  for (int round = 0; round < 6; ++round) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (;;) {
        if (!WriteGameRecords(path, games).ok()) _exit(3);
      }
    }
    usleep(20000 + 37000 * round);
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    if (std::filesystem::exists(path)) {
      auto read = ReadGameRecords(path);
      ASSERT_TRUE(read.ok()) << read.status().message();
      EXPECT_EQ(read->size(), games.size());
    }
    // Temporary files may remain; they never carry the record extension.
    auto files = ListRecordFiles(dir);
    ASSERT_TRUE(files.ok());
    EXPECT_LE(files->size(), 1u);
  }
}

}  // namespace
}  // namespace volkhv::selfplay
