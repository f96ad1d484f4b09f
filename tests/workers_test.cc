// Self-play delegated to worker processes, run as a cluster would run it:
// `volkhv loop` with external_selfplay and `volkhv selfplay --follow`
// workers, all separate processes sharing one run directory.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/records/vrec_io.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "selfplay/worker_dir.h"
#include "tests/loop_fixtures.h"
#include "tests/test_toolkit.h"
#include "training/loop.h"

namespace volkhv {
namespace {

namespace fs = std::filesystem;
using ::volkhv::testing::Contains;
using ::volkhv::testing::ExecVolkhv;
using ::volkhv::testing::FreshDir;
using ::volkhv::testing::Slurp;
using ::volkhv::testing::TinyLoopConfig;
using ::volkhv::testing::WriteFile;

// The tiny loop config, one game a file, its self-play left to workers.
std::string WriteConfig(const std::string& dir, int generations, int games) {
  const std::string path = dir + "/tiny.textproto";
  WriteFile(path, TinyLoopConfig(generations, games, 1) +
                      "external_selfplay { enabled: true timeout_seconds: 300 "
                      "poll_seconds: 0.05 }\n");
  return path;
}

// Starts `volkhv ARGS...` with stdout and stderr appended to `log`.
pid_t Start(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::FILE* out = std::fopen(log.c_str(), "a");
    if (out == nullptr) _exit(127);
    dup2(fileno(out), STDOUT_FILENO);
    dup2(fileno(out), STDERR_FILENO);
    ExecVolkhv(args);
  }
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

// Polls `done` until it holds. The bound only keeps a broken build from
// hanging the suite; the tests never depend on timing.
template <typename Predicate>
bool Eventually(Predicate done) {
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(240);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      names.push_back(entry.path().filename().string());
    }
  }
  return names;
}

// The writer pid in a record file name <gen-NNNN>-<host>-<pid>-<time>-...
std::string WriterPid(const std::string& name) {
  // From the right: <sequence>.vrec, <nonce>, <time>, <pid>.
  std::string rest = name;
  for (int field = 0; field < 3; ++field)
    rest = rest.substr(0, rest.rfind('-'));
  return rest.substr(rest.rfind('-') + 1);
}

struct TakenGames {
  std::map<int, int> by_generation;  // from the file names
  std::map<std::string, int> by_pid;
};

// Every game in RUN/games/ replays legally and records the generation its
// file name says.
TakenGames ReadTaken(const std::string& run) {
  TakenGames taken;
  for (const std::string& name : Names(run + "/games")) {
    auto games = ReadGameRecords(run + "/games/" + name);
    EXPECT_TRUE(games.ok()) << games.status().message();
    if (!games.ok()) continue;
    const int generation = std::stoi(name.substr(4, 4));
    for (const proto::GameRecord& game : *games) {
      EXPECT_EQ(game.net_generation(), generation) << name;
      EXPECT_TRUE(ReplayRecord(game, [](const GameState&, int) {}).ok());
      ++taken.by_generation[generation];
      ++taken.by_pid[WriterPid(name)];
    }
  }
  return taken;
}

TEST(WorkersTest, ThreeWorkersFillEveryGenerationExactly) {
  const std::string dir = FreshDir("three");
  const std::string run = dir + "/run";
  const pid_t loop =
      Start({"loop", "--config", WriteConfig(dir, 2, 6), "--dir", run},
            dir + "/loop.log");
  std::vector<pid_t> workers;
  for (int i = 0; i < 3; ++i) {
    workers.push_back(
        Start({"selfplay", "--follow", run}, Cat(dir, "/worker", i, ".log")));
  }
  EXPECT_EQ(Wait(loop), 0) << Slurp(dir + "/loop.log");
  // The workers end by themselves once the run has finished.
  for (const pid_t worker : workers) EXPECT_EQ(Wait(worker), 0);
  const TakenGames taken = ReadTaken(run);
  EXPECT_EQ(taken.by_generation, (std::map<int, int>{{0, 6}, {1, 6}}));
  // No file is both taken and still waiting (a game counted twice).
  for (const std::string& name : Names(run + "/incoming")) {
    EXPECT_FALSE(fs::exists(run + "/games/" + name)) << name;
  }
  for (int g = 1; g <= 2; ++g) {
    EXPECT_TRUE(
        Contains(Slurp(Cat(run, "/generations/gen-000", g, ".textproto")),
                 "games: 6\n"));
  }
  EXPECT_TRUE(
      Contains(Slurp(dir + "/loop.log"), "gen-0000: 6/6 games from workers ("));
  auto assignment = selfplay::ReadAssignment(run);
  ASSERT_TRUE(assignment.ok());
  EXPECT_TRUE(assignment->finished());
}

TEST(WorkersTest, AKilledWorkerLosesOnlyItsGameInFlight) {
  const std::string dir = FreshDir("killed");
  const std::string run = dir + "/run";
  // What a kill in the middle of a write leaves (WriteFileAtomically's
  // temporary file), and a damaged record file: both are left alone.
  fs::create_directories(run + "/incoming");
  const std::string temporary =
      "gen-0000-elsewhere-1-20260101T000000Z-0badf00d-000000.vrec.tmp-Ab12Cd";
  const std::string damaged =
      "gen-0000-elsewhere-1-20260101T000000Z-0badf00d-000001.vrec";
  std::ofstream(run + "/incoming/" + temporary) << "half a file";
  std::ofstream(run + "/incoming/" + damaged) << "not a record file";
  const pid_t loop =
      Start({"loop", "--config", WriteConfig(dir, 1, 4), "--dir", run},
            dir + "/loop.log");
  // A worker playing one game at a time, killed once the loop has taken
  // its first file: the game it was playing is lost, its files are not.
  const pid_t doomed = Start({"selfplay", "--follow", run, "--parallel", "1"},
                             dir + "/doomed.log");
  const std::string doomed_pid = std::to_string(doomed);
  auto doomed_files = [&](const std::string& sub) {
    std::set<std::string> names;
    for (const std::string& name : Names(run + sub)) {
      if (WriterPid(name) == doomed_pid && name.ends_with(".vrec")) {
        names.insert(name);
      }
    }
    return names;
  };
  ASSERT_TRUE(Eventually([&] { return !doomed_files("/games").empty(); }));
  kill(doomed, SIGKILL);
  EXPECT_EQ(Wait(doomed), -SIGKILL);
  // The loop takes (or, past the count, sets aside) every file the killed
  // worker finished before a second worker starts.
  ASSERT_TRUE(Eventually([&] { return doomed_files("/incoming").empty(); }));
  std::set<std::string> written = doomed_files("/games");
  written.merge(doomed_files("/incoming/surplus"));
  const pid_t worker =
      Start({"selfplay", "--follow", run}, dir + "/worker.log");
  EXPECT_EQ(Wait(loop), 0) << Slurp(dir + "/loop.log");
  EXPECT_EQ(Wait(worker), 0);
  const TakenGames games = ReadTaken(run);
  EXPECT_EQ(games.by_generation, (std::map<int, int>{{0, 4}}));
  // The killed worker's finished games all count, up to the 4 needed.
  int doomed_taken = 0;
  for (const std::string& name : written) {
    doomed_taken += fs::exists(run + "/games/" + name);
  }
  EXPECT_EQ(doomed_taken, std::min<int>(written.size(), 4));
  EXPECT_EQ(games.by_pid.at(doomed_pid), doomed_taken);
  EXPECT_TRUE(fs::exists(run + "/incoming/" + damaged));
  EXPECT_TRUE(fs::exists(run + "/incoming/" + temporary));
  EXPECT_TRUE(Contains(Slurp(dir + "/loop.log"),
                       "warning: not taking " + run + "/incoming/" + damaged));
}

TEST(WorkersTest, AWorkerStartedLatePlaysTheNewNet) {
  const std::string dir = FreshDir("late");
  const std::string run = dir + "/run";
  const pid_t loop =
      Start({"loop", "--config", WriteConfig(dir, 2, 4), "--dir", run},
            dir + "/loop.log");
  // The first worker plays generation 0's four games and leaves.
  const pid_t first =
      Start({"selfplay", "--follow", run, "--games", "4"}, dir + "/first.log");
  EXPECT_EQ(Wait(first), 0);
  const pid_t late = Start({"selfplay", "--follow", run}, dir + "/late.log");
  EXPECT_EQ(Wait(loop), 0) << Slurp(dir + "/loop.log");
  EXPECT_EQ(Wait(late), 0);
  const TakenGames games = ReadTaken(run);
  EXPECT_EQ(games.by_generation, (std::map<int, int>{{0, 4}, {1, 4}}));
  EXPECT_EQ(games.by_pid,
            (std::map<std::string, int>{{std::to_string(first), 4},
                                        {std::to_string(late), 4}}));
  // The late worker's games are all generation 1's, played with its net
  // (ReadTaken checked the recorded generation of every game).
  for (const std::string& name : Names(run + "/games")) {
    if (WriterPid(name) == std::to_string(late)) {
      EXPECT_TRUE(name.starts_with("gen-0001-")) << name;
    }
  }
  EXPECT_TRUE(Contains(Slurp(dir + "/late.log"), "gen-0001.net"));
}

TEST(WorkersTest, DeployConfigsAreValidAndDelegateSelfplay) {
  int configs = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(VOLKHV_SOURCE_DIR) + "/deploy")) {
    if (entry.path().extension() != ".textproto") continue;
    ++configs;
    auto config = training::ReadLoopConfig(entry.path().string());
    ASSERT_TRUE(config.ok()) << config.status().message();
    EXPECT_TRUE(config->external_selfplay().enabled()) << entry.path();
  }
  EXPECT_GE(configs, 1);
}

TEST(WorkersTest, ExternalSelfplaySettingsAreChecked) {
  auto config = training::ParseLoopConfig(
      "game: \"tavlei9\" external_selfplay { enabled: true poll_seconds: 0 }",
      "test");
  ASSERT_FALSE(config.ok());
  EXPECT_TRUE(Contains(std::string(config.status().message()),
                       "external_selfplay.poll_seconds"));
}

TEST(WorkersTest, WriterHostIsReadFromTheFileName) {
  EXPECT_EQ(selfplay::WriterHost(
                "gen-0003-node-7.cluster-4711-20261201T140710Z-cfa3b18b-"
                "000012.vrec",
                "gen-0003"),
            "node-7.cluster");
  EXPECT_EQ(selfplay::WriterHost("gen-0003-odd.vrec", "gen-0003"), "?");
  EXPECT_EQ(selfplay::WriterHost("selfplay-a-1-2-3-4.vrec", "gen-0003"), "?");
}

}  // namespace
}  // namespace volkhv
