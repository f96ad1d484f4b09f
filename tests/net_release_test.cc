// `volkhv net bundle` (training/net_release.h): a run's net with its
// provenance completed from the run directory, or a trained net file with
// the config and games given, and `net describe` showing it.
#include "training/net_release.h"

#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "nn/weights_file.h"
#include "tests/test_toolkit.h"

namespace volkhv::training {
namespace {

using ::volkhv::testing::RunResult;
using ::volkhv::testing::ScopedTempDir;
using ::volkhv::testing::Volkhv;

// A finished two-generation run: config, generation records (10 games in
// 1 h, then 20 games in 30 min) and the nets of generations 1 and 2.
class NetReleaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* sub : {"/generations", "/nets"}) {
      std::filesystem::create_directories(run_.path() + sub);
    }
    config_ = testing::Slurp(std::string(VOLKHV_SOURCE_DIR) +
                             "/configs/tavlei9-cpu-quick.textproto");
    ASSERT_FALSE(config_.empty());
    testing::WriteFile(run_.File("config.textproto"), config_);
    testing::WriteFile(run_.File("generations/gen-0001.textproto"),
                       "generation: 1 selfplay { games: 10 } "
                       "wall_seconds: 3600\n");
    testing::WriteFile(run_.File("generations/gen-0002.textproto"),
                       "generation: 2 selfplay { games: 20 } "
                       "wall_seconds: 1800\n");
    testing::InitNet("tavlei9", run_.File("gen0.net"));
    for (int g : {1, 2}) {
      absl::StatusOr<nn::NetworkWeights> net =
          nn::ReadNetworkWeights(run_.File("gen0.net"));
      ASSERT_TRUE(net.ok()) << net.status();
      net->header.mutable_provenance()->set_generation(g);
      ASSERT_TRUE(
          nn::WriteNetworkWeights(
              *net, run_.File("nets/gen-000" + std::to_string(g) + ".net"))
              .ok());
    }
  }

  ScopedTempDir run_;
  std::string config_;
};

TEST_F(NetReleaseTest, TheLastGenerationWithGamesHoursConfigAndCommit) {
  ReleaseOptions options;
  options.run_dir = run_.path();
  options.source_commit = "0123abc";
  options.cpu_hours = 2.5;
  absl::StatusOr<nn::NetworkWeights> net = ReleaseNet(options);
  ASSERT_TRUE(net.ok()) << net.status();
  const proto::Provenance& p = net->header.provenance();
  EXPECT_EQ(p.generation(), 2);
  EXPECT_EQ(p.selfplay_games(), 30);
  EXPECT_DOUBLE_EQ(p.loop_hours(), 1.5);
  EXPECT_DOUBLE_EQ(p.cpu_hours(), 2.5);
  EXPECT_EQ(p.source_commit(), "0123abc");
  EXPECT_EQ(p.config(), run_.File("config.textproto"));
  EXPECT_EQ(p.config_text(), config_);

  options.generation = 1;
  options.cpu_hours = -1;
  options.config_name = "configs/tavlei9-cpu-quick.textproto";
  net = ReleaseNet(options);
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_EQ(net->header.provenance().generation(), 1);
  EXPECT_EQ(net->header.provenance().selfplay_games(), 10);
  EXPECT_DOUBLE_EQ(net->header.provenance().loop_hours(), 1.0);
  EXPECT_FALSE(net->header.provenance().has_cpu_hours());
  EXPECT_EQ(net->header.provenance().config(),
            "configs/tavlei9-cpu-quick.textproto");
}

// A run started from a released net (`volkhv loop --net-in`): its
// generation 0 carries that net's games and hours, and the release adds
// them to the run's.
TEST_F(NetReleaseTest, ARunStartedFromAReleasedNetCountsItsGamesAndHours) {
  absl::StatusOr<nn::NetworkWeights> zero =
      nn::ReadNetworkWeights(run_.File("gen0.net"));
  ASSERT_TRUE(zero.ok()) << zero.status();
  proto::Provenance* before = zero->header.mutable_provenance();
  before->set_selfplay_games(600);
  before->set_loop_hours(1.25);
  before->set_cpu_hours(0.75);
  ASSERT_TRUE(
      nn::WriteNetworkWeights(*zero, run_.File("nets/gen-0000.net")).ok());
  ReleaseOptions options;
  options.run_dir = run_.path();
  options.cpu_hours = 2.5;
  absl::StatusOr<nn::NetworkWeights> net = ReleaseNet(options);
  ASSERT_TRUE(net.ok()) << net.status();
  const proto::Provenance& p = net->header.provenance();
  EXPECT_EQ(p.selfplay_games(), 630);
  EXPECT_DOUBLE_EQ(p.loop_hours(), 2.75);
  EXPECT_DOUBLE_EQ(p.cpu_hours(), 3.25);
  // Without --cpu-hours and --commit the started net's are not handed on.
  absl::StatusOr<nn::NetworkWeights> trained =
      nn::ReadNetworkWeights(run_.File("nets/gen-0002.net"));
  ASSERT_TRUE(trained.ok()) << trained.status();
  trained->header.mutable_provenance()->set_cpu_hours(0.75);
  trained->header.mutable_provenance()->set_source_commit("old");
  ASSERT_TRUE(
      nn::WriteNetworkWeights(*trained, run_.File("nets/gen-0002.net")).ok());
  options.cpu_hours = -1;
  net = ReleaseNet(options);
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_FALSE(net->header.provenance().has_cpu_hours());
  EXPECT_FALSE(net->header.provenance().has_source_commit());
  options.cpu_hours = 2.5;

  testing::WriteFile(run_.File("nets/gen-0000.net"), "not a net");
  net = ReleaseNet(options);
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("gen-0000.net"), std::string::npos)
      << net.status();
}

TEST_F(NetReleaseTest, ErrorsNameTheRunFileAtFault) {
  ReleaseOptions options;
  options.run_dir = run_.path();
  options.generation = 3;
  absl::StatusOr<nn::NetworkWeights> net = ReleaseNet(options);
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("generation 3 is not finished"),
            std::string::npos)
      << net.status();
  // A net whose provenance is another generation's.
  std::filesystem::copy_file(run_.File("nets/gen-0001.net"),
                             run_.File("nets/gen-0002.net"),
                             std::filesystem::copy_options::overwrite_existing);
  options.generation = 2;
  net = ReleaseNet(options);
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find(
                "gen-0002.net: provenance says generation 1, not 2"),
            std::string::npos)
      << net.status();
  options.run_dir = run_.File("missing");
  EXPECT_FALSE(ReleaseNet(options).ok());
}

TEST_F(NetReleaseTest, BundleWritesWhatDescribeShows) {
  const std::string out = run_.File("released.net");
  const RunResult bundle = Volkhv(
      "net bundle --run " + run_.path() + " --out " + out +
      " --config-name configs/tavlei9-cpu-quick.textproto --commit 0123abc "
      "--cpu-hours 2.5");
  ASSERT_EQ(bundle.exit_code, 0) << bundle.err;
  EXPECT_EQ(bundle.out, "wrote " + out + ": tavlei9 generation 2\n");
  const RunResult describe = Volkhv("net describe --config " + out);
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_NE(describe.out.find(
                "trained by:   configs/tavlei9-cpu-quick.textproto; 30 "
                "self-play games; 1.50 loop hours; 2.50 CPU hours; commit "
                "0123abc\n"),
            std::string::npos)
      << describe.out;
  EXPECT_NE(describe.out.find("loop config:\n" + config_), std::string::npos)
      << describe.out;
  // Usage and input errors: one line, exit 2 and 1.
  RunResult bad = Volkhv("net bundle --out " + out);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "volkhv net bundle: give one of '--run DIR' and '--net FILE'\n");
  bad = Volkhv("net bundle --run " + run_.path() + " --out " + out +
               " --games 3");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "volkhv net bundle: option '--games' goes with '--net'\n");
  bad = Volkhv("net bundle --run " + run_.path() + " --out " + out +
               " --cpu-hours -1");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  bad = Volkhv("net bundle --run " + run_.File("missing") + " --out " + out);
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_NE(bad.err.find(run_.File("missing")), std::string::npos) << bad.err;
}

// A net of `volkhv train`, outside any loop run: it keeps its generation,
// gets the config and games given and no loop hours.
TEST_F(NetReleaseTest, ATrainedNetFileGetsItsConfigAndGames) {
  ReleaseOptions options;
  options.net_path = run_.File("nets/gen-0001.net");
  options.config_path = run_.File("config.textproto");
  options.selfplay_games = 4500;
  options.cpu_hours = 2.25;
  options.config_name = "configs/train-larger-net.textproto";
  options.note = "trained from the bundled net's games";
  absl::StatusOr<nn::NetworkWeights> net = ReleaseNet(options);
  ASSERT_TRUE(net.ok()) << net.status();
  const proto::Provenance& p = net->header.provenance();
  EXPECT_EQ(p.generation(), 1);
  EXPECT_EQ(p.selfplay_games(), 4500);
  EXPECT_FALSE(p.has_loop_hours());
  EXPECT_DOUBLE_EQ(p.cpu_hours(), 2.25);
  EXPECT_EQ(p.config(), "configs/train-larger-net.textproto");
  EXPECT_EQ(p.config_text(), config_);
  EXPECT_EQ(p.note(), "trained from the bundled net's games");

  options.run_dir = run_.path();  // both: refused
  EXPECT_FALSE(ReleaseNet(options).ok());
  options.run_dir.clear();
  options.selfplay_games = -1;
  EXPECT_FALSE(ReleaseNet(options).ok());
  options.selfplay_games = 10;
  options.config_path = run_.File("missing.textproto");
  net = ReleaseNet(options);
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("missing.textproto"), std::string::npos)
      << net.status();
  options.config_path = run_.File("config.textproto");
  testing::WriteFile(run_.File("damaged.net"), "not a net");
  options.net_path = run_.File("damaged.net");
  net = ReleaseNet(options);
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("damaged.net"), std::string::npos)
      << net.status();
}

TEST_F(NetReleaseTest, BundleOfANetFileWritesWhatDescribeShows) {
  const std::string out = run_.File("released.net");
  const RunResult bundle = Volkhv(
      "net bundle --net " + run_.File("nets/gen-0002.net") + " --config " +
      run_.File("config.textproto") + " --games 4500 --out " + out +
      " --config-name configs/train-larger-net.textproto --cpu-hours 2.25");
  ASSERT_EQ(bundle.exit_code, 0) << bundle.err;
  EXPECT_EQ(bundle.out, "wrote " + out + ": tavlei9 generation 2\n");
  const RunResult describe = Volkhv("net describe --config " + out);
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_NE(describe.out.find("trained by:   "
                              "configs/train-larger-net.textproto; 4500 "
                              "self-play games; 2.25 CPU hours\n"),
            std::string::npos)
      << describe.out;
  EXPECT_NE(describe.out.find("training config:\n" + config_),
            std::string::npos)
      << describe.out;
  RunResult bad = Volkhv("net bundle --net " + run_.File("nets/gen-0002.net") +
                         " --games 4500 --out " + out);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "volkhv net bundle: option '--config' is required with '--net'\n");
  bad = Volkhv("net bundle --net " + run_.File("nets/gen-0002.net") +
               " --config " + run_.File("config.textproto") +
               " --games 4500 --generation 2 --out " + out);
  EXPECT_EQ(bad.exit_code, 2);
  bad = Volkhv("net bundle --net " + run_.File("nets/gen-0002.net") +
               " --config " + run_.File("config.textproto") +
               " --games -1 --out " + out);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

}  // namespace
}  // namespace volkhv::training
