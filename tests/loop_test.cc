// The generation loop end to end through the binary: two generations of a
// tiny config, and a loop killed at random moments that, restarted, ends
// with every generation exactly once and no game lost or repeated.
#include "training/loop.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "engine/records/vrec_io.h"
#include "engine/util/strings.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "nn/weights_file.h"
#include "tests/loop_fixtures.h"
#include "tests/test_toolkit.h"
#include "training/loop_budget.h"
#include "training/loop_report.h"
#include "training/run_lock.h"
#include "training/training_config.h"

namespace volkhv {
namespace {

using ::volkhv::testing::Contains;
using ::volkhv::testing::FreshDir;
using ::volkhv::testing::RowHasGames;
using ::volkhv::testing::RunResult;
using ::volkhv::testing::ScopedTempDir;
using ::volkhv::testing::Slurp;
using ::volkhv::testing::TempPath;
using ::volkhv::testing::TinyLoopConfig;
using ::volkhv::testing::Volkhv;
using ::volkhv::testing::WriteFile;

namespace fs = std::filesystem;

// The tiny config of `generations` generations in DIR/tiny-<generations>.
std::string WriteConfig(const std::string& dir, int generations) {
  const std::string path = Cat(dir, "/tiny-", generations, ".textproto");
  WriteFile(path, TinyLoopConfig(generations));
  return path;
}

int RunVolkhvLoop(const std::string& args) {
  const std::string command = std::string(VOLKHV_BINARY) + " loop " + args +
                              " >/dev/null 2>>" + TempPath("loop_test.log") +
                              " </dev/null";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int Lines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Games per generation prefix; every game must replay legally.
std::map<std::string, int> GamesByGeneration(const std::string& games_dir) {
  std::map<std::string, int> counts;
  auto files = ListRecordFiles(games_dir);
  EXPECT_TRUE(files.ok());
  for (const std::string& path : *files) {
    auto games = ReadGameRecords(path);
    EXPECT_TRUE(games.ok()) << games.status().message();
    for (const proto::GameRecord& g : *games) {
      ++counts[fs::path(path).filename().string().substr(0, 8)];
      EXPECT_TRUE(ReplayRecord(g, [](const GameState&, int) {}).ok());
    }
  }
  return counts;
}

void ExpectCompleteRun(const std::string& run, int generations) {
  for (int g = 0; g <= generations; ++g) {
    char name[32];
    std::snprintf(name, sizeof(name), "/nets/gen-%04d.net", g);
    EXPECT_TRUE(fs::exists(run + name)) << name;
  }
  for (int g = 1; g <= generations; ++g) {
    char name[40];
    std::snprintf(name, sizeof(name), "/generations/gen-%04d.textproto", g);
    EXPECT_TRUE(fs::exists(run + name)) << name;
  }
  EXPECT_EQ(Lines(run + "/metrics.csv"), generations + 1);
  std::ifstream report(run + "/report.html");
  std::stringstream html;
  html << report.rdbuf();
  EXPECT_NE(html.str().find("<svg"), std::string::npos);
  const std::map<std::string, int> games = GamesByGeneration(run + "/games");
  EXPECT_EQ(static_cast<int>(games.size()), generations);
  for (const auto& [prefix, count] : games) {
    EXPECT_EQ(count, 4) << prefix << ": games lost or repeated";
  }
}

TEST(LoopTest, TwoGenerationsEndToEnd) {
  const std::string dir = FreshDir("two");
  const std::string config = WriteConfig(dir, 2);
  const std::string run = dir + "/run";
  ASSERT_EQ(RunVolkhvLoop("--config " + config + " --dir " + run), 0);
  ExpectCompleteRun(run, 2);
  // Finished: running again does nothing and succeeds, with or without the
  // config; a different config is refused.
  EXPECT_EQ(RunVolkhvLoop("--dir " + run), 0);
  EXPECT_EQ(RunVolkhvLoop("--config " + config + " --dir " + run), 0);
  const std::string other = WriteConfig(dir, 3);
  EXPECT_EQ(RunVolkhvLoop("--config " + other + " --dir " + run), 1);
  ExpectCompleteRun(run, 2);
}

// A finished run plays its last net against generation 0 and the random
// player once (evaluation.final_games), keeps the result in final.textproto
// and the report, and ends with the one-line summary; a rerun replays
// nothing and prints the same line.
TEST(LoopTest, AFinishedRunEndsWithTheFinalEvaluation) {
  const ScopedTempDir dir;
  const std::string config = dir.File("final.textproto");
  std::string text = TinyLoopConfig(1);
  const std::string evaluation = "evaluation { ";
  ASSERT_NE(text.find(evaluation), std::string::npos);
  text.insert(text.find(evaluation) + evaluation.size(),
              "final_games: 4 final_games_vs_random: 2 ");
  WriteFile(config, text);
  const std::string run = dir.File("run");
  const RunResult first = Volkhv(Cat("loop --config ", config, " --dir ", run));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  absl::StatusOr<std::optional<proto::FinalEvaluation>> final =
      training::ReadFinalEvaluation(run);
  ASSERT_TRUE(final.ok()) << final.status();
  ASSERT_TRUE(final->has_value());
  const proto::FinalEvaluation& f = **final;
  EXPECT_EQ(f.generation(), 1);
  EXPECT_EQ(f.vs_first().opponent(), "gen-0000");
  EXPECT_EQ(f.vs_first().games(), 4);
  EXPECT_EQ(f.vs_first().wins() + f.vs_first().draws() + f.vs_first().losses(),
            4);
  EXPECT_EQ(f.vs_random().opponent(), "random");
  EXPECT_EQ(f.vs_random().games(), 2);
  EXPECT_TRUE(fs::exists(run + "/eval/final.pgn"));
  const std::string summary = training::FinalSummary(f);
  EXPECT_TRUE(Contains(summary, "generation 1 vs generation 0: score "))
      << summary;
  EXPECT_TRUE(Contains(summary, "; vs random: score ")) << summary;
  const std::string last_line =
      Cat("volkhv loop: ", summary, "; report: ", run, "/report.html\n");
  EXPECT_TRUE(Contains(first.err, last_line)) << first.err;
  EXPECT_TRUE(Contains(Slurp(run + "/report.html"),
                       Cat("<b>Final evaluation:</b> ", summary)));

  const auto written = fs::last_write_time(training::FinalEvaluationPath(run));
  const RunResult again = Volkhv(Cat("loop --dir ", run));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(Contains(again.err, "final evaluation:")) << again.err;
  EXPECT_TRUE(Contains(again.err, last_line)) << again.err;
  EXPECT_EQ(fs::last_write_time(training::FinalEvaluationPath(run)), written);
  EXPECT_TRUE(Contains(Slurp(run + "/report.html"), "Final evaluation"));
}

// A budget smaller than one generation: the first generation runs (nothing
// is known of its cost before), then the loop stops; a rerun with the same
// budget does nothing, and one without a budget finishes the run.
TEST(LoopTest, ABudgetStopsTheRunAndARerunWithoutOneFinishesIt) {
  const std::string dir = FreshDir("budget");
  const std::string config = WriteConfig(dir, 2);
  const std::string run = dir + "/run";
  const std::string budget = " --wall-hours 0.0000001 --cpu-hours 1000";
  ASSERT_EQ(RunVolkhvLoop("--config " + config + " --dir " + run + budget), 0);
  EXPECT_TRUE(fs::exists(run + "/generations/gen-0001.textproto"));
  EXPECT_FALSE(fs::exists(run + "/generations/gen-0002.textproto"));
  auto records = training::ReadGenerations(run);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 1);
  EXPECT_GT((*records)[0].cpu_seconds(), 0);
  ASSERT_EQ(RunVolkhvLoop("--dir " + run + budget), 0);
  EXPECT_FALSE(fs::exists(run + "/generations/gen-0002.textproto"));
  ASSERT_EQ(RunVolkhvLoop("--dir " + run), 0);
  ExpectCompleteRun(run, 2);
  EXPECT_EQ(RunVolkhvLoop("--dir " + run + " --cpu-hours -1"), 2);
}

// `--net-in`: a new run's generation 0 is the given net (its weights and
// architecture, not the config's; its provenance names the file), a rerun
// with the same net continues, and another net, a net of another game or a
// missing file are refused, naming what is wrong.
TEST(LoopTest, ARunStartsFromTheGivenNet) {
  const std::string dir = FreshDir("start");
  const std::string config = WriteConfig(dir, 1);
  const std::string start = dir + "/start.net";
  testing::InitNet("tavlei9", start);
  const std::string run = dir + "/run";
  const std::string args = "loop --config " + config + " --dir " + run;
  RunResult r = Volkhv(args + " --net-in " + start);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<nn::NetworkWeights> given = nn::ReadNetworkWeights(start);
  absl::StatusOr<nn::NetworkWeights> zero =
      nn::ReadNetworkWeights(run + "/nets/gen-0000.net");
  absl::StatusOr<nn::NetworkWeights> one =
      nn::ReadNetworkWeights(run + "/nets/gen-0001.net");
  ASSERT_TRUE(given.ok() && zero.ok() && one.ok());
  ASSERT_EQ(zero->tensors.size(), given->tensors.size());
  for (size_t i = 0; i < given->tensors.size(); ++i) {
    EXPECT_EQ(zero->tensors[i].values, given->tensors[i].values)
        << given->tensors[i].name;
  }
  EXPECT_EQ(zero->header.provenance().generation(), 0);
  EXPECT_TRUE(Contains(zero->header.provenance().note(), start))
      << zero->header.provenance().note();
  // The tiny config asks for 8 filters; the run trains the given net's.
  EXPECT_EQ(one->architecture().filters(), given->architecture().filters());
  EXPECT_NE(one->architecture().filters(), 8);

  r = Volkhv(args + " --net-in " + start);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string other = dir + "/other.net";
  ASSERT_TRUE(fs::copy_file(run + "/nets/gen-0001.net", other));
  r = Volkhv(args + " --net-in " + other);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "was started from another net")) << r.err;

  // --games-from: the first run's games start the new run's window, under
  // names older than its own, byte for byte.
  r = Volkhv(args + "-games --net-in " + start + " --games-from " + run +
             "/games");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.err, "the replay window starts with 4 games"))
      << r.err;
  const std::map<std::string, int> copied =
      GamesByGeneration(run + "-games/games");
  EXPECT_EQ(copied,
            (std::map<std::string, int>{{"earlier-", 4}, {"gen-0000", 4}}));
  for (const auto& entry : fs::directory_iterator(run + "/games")) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(Slurp(run + "-games/games/earlier-" + name),
              Slurp(entry.path().string()))
        << name;
  }
  const auto window = [](const std::string& run_dir) {
    proto::GenerationRecord record;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        Slurp(run_dir + "/generations/gen-0001.textproto"), &record));
    return record.training().window_positions();
  };
  EXPECT_GT(window(run + "-games"), window(run));
  // Without --net-in, or with a folder without games, it is refused.
  r = Volkhv(args + "-games2 --games-from " + run + "/games");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--games-from needs --net-in")) << r.err;
  r = Volkhv(args + "-games2 --net-in " + start + " --games-from " + run +
             "/nets");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "no game records")) << r.err;
  EXPECT_FALSE(fs::exists(run + "-games2/nets/gen-0000.net"));

  const std::string tavreli = dir + "/tavreli.net";
  testing::InitNet("tavreli", tavreli);
  r = Volkhv(args + "-fresh --net-in " + tavreli);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "net is for game tavreli, not tavlei9")) << r.err;
  EXPECT_FALSE(fs::exists(run + "-fresh/nets/gen-0000.net"));
  r = Volkhv(args + "-fresh --net-in " + dir + "/missing.net");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "missing.net")) << r.err;

  // auto: the game's bundled net, here from $VOLKHV_NETS.
  const std::string nets = dir + "/nets";
  fs::create_directories(nets);
  ASSERT_TRUE(fs::copy_file(start, nets + "/tavlei9.net"));
  r = Volkhv(args + "-auto --net-in auto", "VOLKHV_NETS=" + nets);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.err, nets + "/tavlei9.net")) << r.err;
  absl::StatusOr<nn::NetworkWeights> from_auto =
      nn::ReadNetworkWeights(run + "-auto/nets/gen-0000.net");
  ASSERT_TRUE(from_auto.ok());
  EXPECT_EQ(from_auto->tensors.front().values, given->tensors.front().values);
  r = Volkhv(args + "-none --net-in auto", "VOLKHV_NETS=" + dir + "/empty");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "--net-in auto: ")) << r.err;
}

// Gumbel self-play: the records carry the improved policy, the trainer
// learns from them, and the generation completes.
TEST(LoopTest, GumbelSelfplayRecordsTrain) {
  const std::string dir = FreshDir("gumbel");
  std::string text = TinyLoopConfig(1);
  text.replace(text.find("selfplay {") + 10, 0,
               "\n  search_params { name: \"gumbel\" value: \"1\" }");
  const std::string config = dir + "/gumbel.textproto";
  std::ofstream(config) << text;
  const std::string run = dir + "/run";
  ASSERT_EQ(RunVolkhvLoop("--config " + config + " --dir " + run), 0);
  ExpectCompleteRun(run, 1);
  int improved = 0;
  auto files = ListRecordFiles(run + "/games");
  ASSERT_TRUE(files.ok());
  for (const std::string& path : *files) {
    auto games = ReadGameRecords(path);
    ASSERT_TRUE(games.ok());
    for (const proto::GameRecord& game : *games) {
      for (const proto::PlyRecord& ply : game.plies()) {
        improved += ply.policy_target() == proto::IMPROVED_POLICY;
      }
    }
  }
  EXPECT_GT(improved, 0);
  auto records = training::ReadGenerations(run);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 1);
  EXPECT_GT((*records)[0].training().step(), 0);
  EXPECT_TRUE(std::isfinite((*records)[0].training().policy_loss()));
  fs::remove_all(dir);
}

// Two one-generation runs at a tiny budget, then every match of the report;
// again with --parallel and --at-cpu-hours, and with --matches-only.
TEST(LoopTest, AbLearningScriptTrainsBothRunsAndReportsEveryMatch) {
  const std::string dir = FreshDir("ab");
  const std::string a = WriteConfig(dir, 1);
  const std::string b = WriteConfig(dir, 2);
  const std::string command =
      Cat("bash ", VOLKHV_SOURCE_DIR, "/scripts/ab-learning.sh --a ", a,
          " --b ", b, " --cpu-hours 0.0000001 --games 2 --visits 4 --out ", dir,
          "/ab --opponents random,ab1 --binary ", VOLKHV_BINARY, " >", dir,
          "/stdout.txt 2>&1");
  ASSERT_EQ(std::system(command.c_str()), 0)
      << testing::Slurp(dir + "/stdout.txt");
  const std::string report = testing::Slurp(dir + "/ab/report.md");
  // Each run stopped after its first generation: the budget, not the
  // configs' 1 and 2 generations.
  EXPECT_NE(report.find("| A: tiny-1 | 1 | "), std::string::npos) << report;
  EXPECT_NE(report.find("| B: tiny-2 | 1 | "), std::string::npos) << report;
  for (const std::string row : {"| random | tiny-1: 4 visits | 2 | ",
                                "| alphabeta:depth=1 | tiny-1: 4 visits | 2 | ",
                                "| random | tiny-2: 4 visits | 2 | ",
                                "| alphabeta:depth=1 | tiny-2: 4 visits | 2 | ",
                                "| tiny-2 | tiny-1: 4 visits each | 2 | "}) {
    EXPECT_TRUE(RowHasGames(report, row, 2));
  }
  EXPECT_NE(report.find("one after the other"), std::string::npos) << report;
  // Again, both loops at once: the runs are done and only play again; the
  // nets within one CPU-hour are the final ones, within 1e-10 there are none.
  const std::string again =
      Cat("bash ", VOLKHV_SOURCE_DIR, "/scripts/ab-learning.sh --a ", a,
          " --b ", b, " --cpu-hours 0.0000001 --games 2 --visits 4 --out ", dir,
          "/ab --opponents ab1 --parallel --at-cpu-hours 1 --binary ",
          VOLKHV_BINARY, " >", dir, "/again.txt 2>&1");
  ASSERT_EQ(std::system(again.c_str()), 0)
      << testing::Slurp(dir + "/again.txt");
  const std::string second = testing::Slurp(dir + "/ab/report.md");
  EXPECT_NE(second.find("at the same time"), std::string::npos) << second;
  EXPECT_NE(second.find("the nets each run had after 1 CPU-hours"),
            std::string::npos)
      << second;
  EXPECT_NE(second.find("| A: tiny-1 | 1 | "), std::string::npos) << second;
  EXPECT_NE(second.find("/ab/a/nets/gen-0001.net"), std::string::npos)
      << second;
  // Matches only: no training; within 1e-10 CPU-hours no run has a net.
  const std::string none =
      Cat("bash ", VOLKHV_SOURCE_DIR, "/scripts/ab-learning.sh --a ", a,
          " --b ", b, " --out ", dir,
          "/ab --matches-only --at-cpu-hours 0.0000000001 --binary ",
          VOLKHV_BINARY, " >", dir, "/none.txt 2>&1");
  EXPECT_EQ(WEXITSTATUS(std::system(none.c_str())), 2);
  EXPECT_EQ(testing::Slurp(dir + "/none.txt"),
            "ab-learning: a run has no net within 0.0000000001 CPU-hours\n");
  const std::string bad =
      Cat("bash ", VOLKHV_SOURCE_DIR, "/scripts/ab-learning.sh --a ", a,
          " --b ", b, " --cpu-hours x >", dir, "/bad.txt 2>&1");
  EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
  EXPECT_EQ(
      testing::Slurp(dir + "/bad.txt"),
      "ab-learning: option '--cpu-hours': 'x' is not a positive number\n");
  fs::remove_all(dir);
}

// A two-generation run's ladder after an hour (its last net) and after
// 1e-10 CPU-hours (no net yet: skipped), then bad input.
TEST(LoopTest, LadderCurveScriptPlaysTheNetOfEachPoint) {
  const std::string dir = FreshDir("curve");
  const std::string run = dir + "/run";
  ASSERT_EQ(RunVolkhvLoop("--config " + WriteConfig(dir, 2) + " --dir " + run),
            0);
  const std::string command =
      Cat("bash ", VOLKHV_SOURCE_DIR, "/scripts/ladder-curve.sh ", run,
          " --points 0.0000000001,1 --rungs random,ab1 --games 2 --visits 4",
          " --out ", dir, "/curve.md --binary ", VOLKHV_BINARY, " >", dir,
          "/stdout.txt 2>", dir, "/stderr.txt");
  ASSERT_EQ(std::system(command.c_str()), 0)
      << testing::Slurp(dir + "/stderr.txt");
  const std::string table = testing::Slurp(dir + "/curve.md");
  EXPECT_EQ(table, testing::Slurp(dir + "/stdout.txt"));
  EXPECT_NE(table.find("| CPU-hours | net | CPU-hours of the net | random: "
                       "W/D/L, score | ab1: W/D/L, score |"),
            std::string::npos)
      << table;
  EXPECT_TRUE(RowHasGames(table, "| 1 | gen-0002 | 0.00 | ", 2));
  EXPECT_EQ(table.find("| 0.0000000001 |"), std::string::npos) << table;
  EXPECT_NE(testing::Slurp(dir + "/stderr.txt")
                .find("ladder-curve: " + run +
                      " has no net within 0.0000000001 CPU-hours; skipped"),
            std::string::npos);
  // The row's second rung: ", 0.500 | 1/0/1, 0.500 |" and the like.
  const size_t row = table.find("| 1 | gen-0002 |");
  ASSERT_NE(row, std::string::npos);
  int wins = -1, draws = -1, losses = -1;
  const size_t second = table.find(" | ", table.find(", ", row)) + 3;
  ASSERT_EQ(
      std::sscanf(table.c_str() + second, "%d/%d/%d", &wins, &draws, &losses),
      3)
      << table;
  EXPECT_EQ(wins + draws + losses, 2) << table;
  const std::string bad =
      Cat("bash ", VOLKHV_SOURCE_DIR, "/scripts/ladder-curve.sh ", dir,
          " --points 1 >", dir, "/bad.txt 2>&1");
  EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
  EXPECT_EQ(testing::Slurp(dir + "/bad.txt"),
            Cat("ladder-curve: ", dir,
                ": not a loop run directory (no metrics.csv)\n"));
  const std::string point =
      Cat("bash ", VOLKHV_SOURCE_DIR, "/scripts/ladder-curve.sh ", run,
          " --points 1,x >", dir, "/point.txt 2>&1");
  EXPECT_EQ(WEXITSTATUS(std::system(point.c_str())), 2);
  EXPECT_EQ(testing::Slurp(dir + "/point.txt"),
            "ladder-curve: option '--points': 'x' is not a positive number\n");
  fs::remove_all(dir);
}

proto::GenerationRecord Spent(double cpu_seconds, double wall_seconds) {
  proto::GenerationRecord r;
  r.set_cpu_seconds(cpu_seconds);
  r.set_wall_seconds(wall_seconds);
  return r;
}

TEST(LoopBudgetTest, StopsWhenSpentOrWhenTheMeanGenerationWouldOverrun) {
  const training::LoopBudget none;
  const training::LoopBudget hour{.cpu_hours = 1, .wall_hours = 0};
  std::vector<proto::GenerationRecord> done;
  EXPECT_EQ(training::BudgetStop(hour, done), "");
  done.push_back(Spent(1000, 5000));
  done.push_back(Spent(1400, 5000));
  // 2400 s spent, 1200 s a generation: 3600 is not past the budget.
  EXPECT_EQ(training::BudgetStop(hour, done), "");
  EXPECT_EQ(training::BudgetStop(none, done), "");
  done.push_back(Spent(1300, 5000));
  // 3700 s spent: past one hour.
  EXPECT_NE(training::BudgetStop(hour, done).find("CPU budget spent"),
            std::string::npos);
  done.pop_back();
  done.push_back(Spent(1100, 5000));
  // 3500 s spent, 1167 s a generation: the next would overrun.
  EXPECT_NE(training::BudgetStop(hour, done).find("another generation"),
            std::string::npos);
  // 15000 s of wall time spent, 5000 s a generation.
  EXPECT_EQ(training::BudgetStop({.cpu_hours = 0, .wall_hours = 6}, done), "");
  EXPECT_NE(training::BudgetStop({.cpu_hours = 0, .wall_hours = 5}, done)
                .find("wall-clock budget: 4.167 of 5.000 hours"),
            std::string::npos);
}

// Every row of metrics.csv has the header's columns, whatever a generation
// lacks (a validation split, a match against the random player), so that a
// column read by name (the scripts' cpu_seconds) is that column.
TEST(LoopReportTest, EveryMetricsRowHasTheHeadersColumns) {
  std::vector<proto::GenerationRecord> rows(3);
  for (int i = 0; i < 3; ++i) {
    rows[i].set_generation(i + 1);
    rows[i].set_cpu_seconds(10.5 * (i + 1));
  }
  rows[0].mutable_training()->set_has_validation(true);
  rows[0].mutable_training()->set_validation_value_loss(0.9);
  rows[1].mutable_vs_random()->set_score(1);
  const std::string path = TempPath("metrics_columns.csv");
  ASSERT_TRUE(training::WriteMetricsCsv(rows, path).ok());
  std::ifstream in(path);
  std::vector<std::vector<std::string>> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(absl::StrSplit(line, ','));
  }
  ASSERT_EQ(lines.size(), 4);
  ASSERT_EQ(lines[0].back(), "cpu_seconds");
  for (int i = 1; i < 4; ++i) {
    ASSERT_EQ(lines[i].size(), lines[0].size()) << "row " << i;
    EXPECT_EQ(lines[i].back(), absl::StrFormat("%.3f", 10.5 * i));
  }
}

TEST(LoopTest, KilledAndRestartedLoopLosesNothing) {
  const std::string dir = FreshDir("killed");
  const std::string config = WriteConfig(dir, 3);
  const std::string run = dir + "/run";
  // Kill it several times, at different moments. They are short, so that
  // on a fast machine (where the whole run takes about 3 s) they land in
  // self-play, training and the matches rather than after the end; the
  // last is long enough that even a slow machine has written the run's
  // config by then.
  for (const char* seconds : {"1.5", "0.8", "1.3", "0.6", "1.7", "5"}) {
    const std::string command =
        Cat("timeout -s KILL ", seconds, " ", VOLKHV_BINARY, " loop --config ",
            config, " --dir ", run, " >/dev/null 2>&1 </dev/null");
    std::system(command.c_str());
  }
  ASSERT_EQ(RunVolkhvLoop("--dir " + run), 0);
  ExpectCompleteRun(run, 3);
}

// A loop stopped in the middle of a generation leaves the time it spent on
// it, and the generation's record, written by the next loop, adds it in: a
// budget counts the whole generation.
TEST(LoopTest, AStoppedGenerationKeepsTheTimeItTook) {
  const std::string dir = FreshDir("spent");
  const std::string run = dir + "/run";
  absl::StatusOr<proto::LoopConfig> config =
      training::ReadLoopConfig(WriteConfig(dir, 1));
  ASSERT_TRUE(config.ok()) << config.status().message();
  std::atomic<bool> stop{false};
  training::LoopOptions options;
  options.run_dir = run;
  options.config = *config;
  options.stop = &stop;
  options.log = [&stop](const std::string& line) {
    if (Contains(line, "training on the games")) stop = true;
  };
  ASSERT_TRUE(training::RunLoop(options).ok());
  const std::string spent_path = run + "/generations/gen-0001.spent.textproto";
  ASSERT_TRUE(fs::exists(spent_path));
  EXPECT_FALSE(fs::exists(run + "/generations/gen-0001.textproto"));
  proto::GenerationSpent spent;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(Slurp(spent_path), &spent));
  EXPECT_GT(spent.wall_seconds(), 0);
  EXPECT_GT(spent.cpu_seconds(), 0);

  stop = false;
  options.log = nullptr;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(training::RunLoop(options).ok());
  const double second_loop =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  absl::StatusOr<std::vector<proto::GenerationRecord>> records =
      training::ReadGenerations(run);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 1u);
  // The second loop only evaluated; the record has the first one's time too.
  EXPECT_GT((*records)[0].wall_seconds(), spent.wall_seconds());
  EXPECT_LE((*records)[0].wall_seconds(), spent.wall_seconds() + second_loop);
  EXPECT_GT((*records)[0].cpu_seconds(), spent.cpu_seconds());
  EXPECT_FALSE(fs::exists(spent_path));
  fs::remove_all(dir);
}

TEST(LoopTest, ASecondLoopOnTheSameRunIsRefused) {
  const std::string dir = FreshDir("locked");
  const std::string config = WriteConfig(dir, 1);
  const std::string run = dir + "/run";
  fs::create_directories(run);
  {
    absl::StatusOr<training::RunLock> lock = training::RunLock::Acquire(run);
    ASSERT_TRUE(lock.ok()) << lock.status().message();
    // A second lock, in this process or another, is refused and names the
    // holder.
    absl::StatusOr<training::RunLock> second = training::RunLock::Acquire(run);
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.status().message().find(
                  Cat("in use by another volkhv loop (pid ", getpid(), ")")),
              std::string::npos)
        << second.status().message();
    const std::string errors = dir + "/errors.txt";
    const std::string command =
        Cat(VOLKHV_BINARY, " loop --config ", config, " --dir ", run,
            " >/dev/null 2>", errors, " </dev/null");
    const int status = std::system(command.c_str());
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1);
    std::ifstream in(errors);
    std::string message;
    std::getline(in, message);
    EXPECT_NE(message.find("is in use by another volkhv loop"),
              std::string::npos)
        << message;
    // It wrote nothing.
    EXPECT_FALSE(fs::exists(run + "/config.textproto"));
    EXPECT_FALSE(fs::exists(run + "/nets"));
  }
  // Released (as when the holder ends, however it ends): the loop runs.
  ASSERT_EQ(RunVolkhvLoop("--config " + config + " --dir " + run), 0);
  ExpectCompleteRun(run, 1);
}

// Issue 22, item 10: a loop that died between the last generation's record
// and metrics.csv left no last row and no report; a rerun makes both.
TEST(LoopTest, ARerunWritesTheMetricsAndReportOfTheLastGeneration) {
  const std::string dir = FreshDir("rerun-report");
  const std::string config = WriteConfig(dir, 1);
  const std::string run = dir + "/run";
  ASSERT_EQ(RunVolkhvLoop(Cat("--config ", config, " --dir ", run)), 0);
  ASSERT_TRUE(fs::exists(run + "/generations/gen-0001.textproto"));
  // The state of a loop killed right after writing gen-0001.textproto.
  fs::remove(run + "/metrics.csv");
  fs::remove(run + "/report.html");
  ASSERT_EQ(RunVolkhvLoop(Cat("--config ", config, " --dir ", run)), 0);
  ExpectCompleteRun(run, 1);
}

TEST(LoopTest, GameOptionsAndTheDeprecatedPrinceMaxSteps) {
  const std::string base = TinyLoopConfig(1);
  auto options = [&](const std::string& extra) {
    absl::StatusOr<proto::LoopConfig> config =
        training::ParseLoopConfig(base + extra + "\n", "cfg");
    EXPECT_TRUE(config.ok()) << config.status().message();
    return config.ok() ? training::LoopGameOptions(*config) : GameOptions{};
  };
  EXPECT_EQ(options(""), GameOptions{});
  EXPECT_EQ(options("prince_max_steps: 0"), GameOptions{});
  EXPECT_EQ(options("prince_max_steps: 2"),
            (GameOptions{{"prince_max_steps", 2}}));
  EXPECT_EQ(options("game_options { key: \"prince_max_steps\" value: 3 }"),
            (GameOptions{{"prince_max_steps", 3}}));
  EXPECT_EQ(options("prince_max_steps: 2 "
                    "game_options { key: \"prince_max_steps\" value: 3 }"),
            (GameOptions{{"prince_max_steps", 3}}));
  absl::StatusOr<proto::LoopConfig> bad = training::ParseLoopConfig(
      base + "game_options { key: \"bogus\" value: 1 }\n", "cfg");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("bogus"),
            std::string::npos);
}

TEST(LoopTest, ShippedConfigsAreValid) {
  int configs = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(VOLKHV_SOURCE_DIR) + "/configs")) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("net-") || name.starts_with("selfplay-")) continue;
    if (name.starts_with("train-")) {  // `volkhv train --config`
      auto config = training::ReadTrainingConfig(entry.path().string());
      EXPECT_TRUE(config.ok()) << name << ": " << config.status().message();
      continue;
    }
    auto config = training::ReadLoopConfig(entry.path().string());
    EXPECT_TRUE(config.ok()) << name << ": " << config.status().message();
    ++configs;
  }
  EXPECT_GE(configs, 6);
}

TEST(LoopTest, EvaluatorPrecisionIsChecked) {
  absl::StatusOr<proto::LoopConfig> config = training::ParseLoopConfig(
      "evaluator { precision: \"bf16\" }", "bf16.textproto");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->evaluator().precision(), "bf16");
  EXPECT_EQ(training::ParseLoopConfig("", "default.textproto")
                ->evaluator()
                .precision(),
            "fp32");
  absl::StatusOr<proto::LoopConfig> bad = training::ParseLoopConfig(
      "evaluator { precision: \"fp8\" }", "fp8.textproto");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "fp8.textproto: evaluator.precision: unknown precision 'fp8' "
            "(known: fp32, bf16, fp16)");
  bad = training::ParseLoopConfig(
      "evaluator { backend: \"eigen\" precision: \"bf16\" }", "e.textproto");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "e.textproto: evaluator.precision: the eigen backend computes in "
            "fp32 only, not bf16 (use backend: \"torch\")");
}

TEST(LoopTest, BadConfigsNameTheKey) {
  const std::string dir = FreshDir("bad");
  std::ofstream(dir + "/unknown.textproto") << "game: \"tavlei9\"\nbogus: 1\n";
  std::ofstream(dir + "/range.textproto")
      << "game: \"tavlei9\"\nselfplay { visits: 0 }\n";
  std::ofstream(dir + "/game.textproto") << "game: \"chess\"\n";
  for (const char* name : {"unknown", "range", "game"}) {
    EXPECT_EQ(RunVolkhvLoop(Cat("--config ", dir, "/", name,
                                ".textproto --dir ", dir, "/run-", name)),
              1)
        << name;
  }
}

// Issue 22, items 3, 4 and 6: a loop config is checked against the limits
// of the command line, and its net against the weight file's limit, before
// anything is allocated or written; the error names the key.
TEST(LoopTest, ConfigsAreCheckedAgainstTheCommandLineLimits) {
  struct Case {
    const char* text;   // appended to the tiny config (later keys win)
    const char* error;  // the start of the message after the file name
  };
  const Case cases[] = {
      {"evaluator { max_batch: 2000000000 }",
       "evaluator.max_batch: must be in [1, 4096], got 2000000000"},
      {"evaluation { games: 2000000000 }",
       "evaluation.games: must be in [2, 1000000], got 2000000000"},
      {"evaluation { visits: 2000000000 }",
       "evaluation.visits: must be in [1, 10000000], got 2000000000"},
      {"evaluation { final_games: -2 }",
       "evaluation.final_games: must be in [0, 1000000], got -2"},
      {"evaluator { backend: \"junk\" }",
       "evaluator.backend: unknown backend 'junk'"},
      {"evaluator { device: \"gpu\" }",
       "evaluator.device: expected cpu, cuda or cuda:N, got 'gpu'"},
      {"gating { accept_score: 2 }",
       "gating.accept_score: must be in [0, 1], got 2"},
      {"gating { accept_score: nan }",
       "gating.accept_score: must be in [0, 1], got nan"},
      {"prince_max_steps: -5",
       "prince_max_steps: must be in [0, 100] (0 = unlimited), got -5"},
      {"network { stack_layers: 0 }", "network: "},
      {"network { architecture { blocks: 30 filters: 1024 } }",
       "network: architecture: 30 blocks x 1024 filters need "},
      {"network { architecture { blocks: 100 filters: 1024 } }",
       "network: architecture: 100 blocks x 1024 filters need "},
  };
  const std::string base = TinyLoopConfig(1);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string text = base + c.text + "\n";
    absl::StatusOr<proto::LoopConfig> config =
        training::ParseLoopConfig(text, "cfg");
    ASSERT_FALSE(config.ok());
    const std::string message(config.status().message());
    EXPECT_TRUE(message.starts_with(Cat("cfg: ", c.error))) << message;
  }
  // Through the binary: refused at once, and nothing is written, so a
  // corrected config starts the run.
  const std::string dir = FreshDir("limits");
  std::ofstream(dir + "/bad.textproto")
      << base << "network { stack_layers: 0 }\n";
  EXPECT_EQ(RunVolkhvLoop(
                Cat("--config ", dir, "/bad.textproto --dir ", dir, "/run")),
            1);
  EXPECT_FALSE(fs::exists(dir + "/run/config.textproto"));
  EXPECT_FALSE(fs::exists(dir + "/run/nets"));
}

}  // namespace
}  // namespace volkhv
