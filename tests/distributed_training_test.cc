// Training across processes (training/distributed.h, process_group.h,
// sync_batch_norm.h; `volkhv train --world-size N`): the settings and their
// errors, the synchronised batch norm against LibTorch's, two `volkhv train`
// processes against one with the whole batch, the resume after a rank is
// killed, and a rendezvous that never completes.
//
// The processes meet on 127.0.0.1 at a port the kernel just handed out
// (FreePort); a run whose rank 0 finds it taken is tried again on another.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "nn/network.h"
#include "nn/weights_file.h"
#include "tests/test_toolkit.h"
#include "tests/training_fixtures.h"
#include "training/distributed.h"
#include "training/process_group.h"
#include "training/sync_batch_norm.h"

namespace volkhv::training {
namespace {

using ::volkhv::testing::Contains;
using ::volkhv::testing::RunResult;
using ::volkhv::testing::ScopedTempDir;
using ::volkhv::testing::Slurp;
using ::volkhv::testing::Volkhv;

// ---------------------------------------------------------------------------
// The settings.

using Env = std::map<std::string, std::string>;

// Flags by field name: world_size, rank, master, timeout_s, backend.
DistributedFlags Flags(const std::map<std::string, std::string>& given) {
  DistributedFlags f;
  for (const auto& [name, value] : given) {
    if (name == "world_size") f.world_size = value;
    if (name == "rank") f.rank = value;
    if (name == "master") f.master = value;
    if (name == "timeout_s") f.timeout_s = value;
    if (name == "backend") f.backend = value;
  }
  return f;
}

absl::StatusOr<DistributedOptions> Resolve(const DistributedFlags& flags,
                                           const Env& env = {}) {
  return ResolveDistributedOptions(flags, [&env](const char* name) {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(DistributedOptionsTest, FlagsAndEnvironmentFlagsFirst) {
  absl::StatusOr<DistributedOptions> o = Resolve({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->world_size, 1);
  EXPECT_FALSE(o->enabled());

  o = Resolve(Flags(
      {{"world_size", "4"}, {"rank", "3"}, {"master", "10.0.0.7:29500"}}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->world_size, 4);
  EXPECT_EQ(o->rank, 3);
  EXPECT_EQ(o->master_host, "10.0.0.7");
  EXPECT_EQ(o->master_port, 29500);
  EXPECT_EQ(o->timeout_seconds, kDefaultDistTimeoutSeconds);
  EXPECT_EQ(o->backend, "gloo");

  const Env env = {{"WORLD_SIZE", "8"},
                   {"RANK", "5"},
                   {"MASTER_ADDR", "node-1"},
                   {"MASTER_PORT", "1234"}};
  o = Resolve({}, env);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->world_size, 8);
  EXPECT_EQ(o->rank, 5);
  EXPECT_EQ(o->master_host, "node-1");
  EXPECT_EQ(o->master_port, 1234);

  o = Resolve(
      Flags({{"rank", "2"}, {"master", "[::1]:80"}, {"timeout_s", "7"}}), env);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->world_size, 8);
  EXPECT_EQ(o->rank, 2);
  EXPECT_EQ(o->master_host, "::1");
  EXPECT_EQ(o->master_port, 80);
  EXPECT_EQ(o->timeout_seconds, 7);
}

TEST(DistributedOptionsTest, ErrorsNameTheFlagOrVariable) {
  struct Case {
    DistributedFlags flags;
    Env env;
    std::vector<std::string> needles;
  };
  const std::vector<Case> cases = {
      {Flags({{"world_size", "0"}}), {}, {"--world-size", "[1, 64]"}},
      {Flags({{"world_size", "65"}}), {}, {"--world-size", "[1, 64]"}},
      {Flags({{"world_size", "two"}}), {}, {"--world-size", "'two'"}},
      {Flags(
           {{"world_size", "2"}, {"rank", "2"}, {"master", "127.0.0.1:5000"}}),
       {},
       {"--rank", "rank 2 is not below the world size 2"}},
      {Flags(
           {{"world_size", "2"}, {"rank", "-1"}, {"master", "127.0.0.1:5000"}}),
       {},
       {"--rank"}},
      {{}, {{"WORLD_SIZE", "2"}, {"RANK", "3"}}, {"RANK", "world size 2"}},
      {Flags({{"world_size", "2"}}), {}, {"--master ADDR:PORT", "MASTER_ADDR"}},
      {Flags({{"world_size", "2"}, {"master", "localhost"}}),
       {},
       {"--master", "no ':PORT'"}},
      {Flags({{"world_size", "2"}, {"master", ":29500"}}),
       {},
       {"--master", "empty"}},
      {Flags({{"world_size", "2"}, {"master", "host:0"}}),
       {},
       {"--master", "[1, 65535]"}},
      {Flags({{"world_size", "2"}, {"master", "host:70000"}}),
       {},
       {"--master", "[1, 65535]"}},
      {Flags({{"world_size", "2"}, {"master", "fe80::1:29500"}}),
       {},
       {"--master", "brackets"}},
      {Flags({{"world_size", "2"}}),
       {{"MASTER_ADDR", "node-1"}, {"MASTER_PORT", "x"}},
       {"MASTER_ADDR:MASTER_PORT", "port"}},
      {Flags({{"timeout_s", "0"}}), {}, {"--dist-timeout-s"}},
      {Flags({{"backend", "mpi"}}), {}, {"--dist-backend", "gloo or nccl"}},
  };
  for (const Case& c : cases) {
    absl::StatusOr<DistributedOptions> o = Resolve(c.flags, c.env);
    ASSERT_FALSE(o.ok()) << c.needles[0];
    const std::string message(o.status().message());
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (const std::string& needle : c.needles) {
      EXPECT_TRUE(Contains(message, needle));
    }
  }
}

// ---------------------------------------------------------------------------
// Processes.

// A TCP port of 127.0.0.1 that was free a moment ago.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
            0);
  socklen_t size = sizeof(address);
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size), 0);
  close(fd);
  return ntohs(address.sin_port);
}

// A `volkhv` child with its stdout and stderr in files (or stdout in a
// pipe the test reads).
struct Child {
  pid_t pid = -1;
  std::string out, err;  // file paths
  int out_pipe = -1;     // read end, when piped
};

Child Spawn(const std::vector<std::string>& args, const std::string& out,
            const std::string& err, bool pipe_stdout = false) {
  Child child;
  child.out = out;
  child.err = err;
  int fds[2] = {-1, -1};
  if (pipe_stdout) {
    EXPECT_EQ(pipe(fds), 0);
  }
  child.pid = fork();
  if (child.pid == 0) {
    FILE* e = std::freopen(err.c_str(), "w", stderr);
    if (pipe_stdout) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
    } else {
      FILE* o = std::freopen(out.c_str(), "w", stdout);
      (void)o;
    }
    (void)e;
    ::volkhv::testing::ExecVolkhv(args);
  }
  if (pipe_stdout) {
    close(fds[1]);
    child.out_pipe = fds[0];
  }
  return child;
}

// The child's exit code (-1 when killed by a signal).
int Wait(const Child& child) {
  int status = 0;
  EXPECT_EQ(waitpid(child.pid, &status, 0), child.pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Reads the child's piped stdout until a line starts with `prefix`; returns
// false at its end.
bool ReadUntilLine(int fd, const std::string& prefix, std::string* seen) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1) {
    seen->push_back(c);
    if (c != '\n') {
      line.push_back(c);
      continue;
    }
    if (line.starts_with(prefix)) return true;
    line.clear();
  }
  return false;
}

void DrainAndClose(int fd, std::string* seen) {
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0) seen->append(buffer, n);
  close(fd);
}

// The training config of these tests: SGD with momentum, batch 16, every
// position in the window, a log line and (every 2 steps) a checkpoint.
constexpr char kConfig[] = R"(batch_size: 16 steps: 8 learning_rate: 0.05
window_min_positions: 1000000 validation_fraction: 0.1
validation_positions: 32 validation_interval: 0
checkpoint_interval: 2 log_interval: 1 loader_threads: 1 prefetch_batches: 2
)";

// Without Gloo's headers at configure time the build cannot train across
// processes (cmake/dependencies.cmake says so); these tests then skip.
#if VOLKHV_HAVE_GLOO
constexpr bool kHaveGloo = true;
#else
constexpr bool kHaveGloo = false;
#endif

class DistributedTrainingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kHaveGloo) GTEST_SKIP() << "built without Gloo (libgloo-dev)";
    records_ = dir_.File("records");
    std::filesystem::create_directories(records_);
    testing::SyntheticOptions games;
    games.games = 8;
    games.max_plies = 30;
    testing::WriteRecords(records_ + "/games.vrec",
                          testing::SyntheticGames("tavlei9", games));
    net_ = testing::WriteTinyNet(dir_.path(), "tavlei9");
    config_ = dir_.File("train.textproto");
    testing::WriteFile(config_, kConfig);
  }

  // `volkhv train` arguments writing into `out_dir` (net.net, train.ckpt,
  // log.csv).
  std::vector<std::string> TrainArgs(const std::string& out_dir) const {
    return {"train",
            "--game",
            "tavlei9",
            "--records",
            records_,
            "--net-in",
            net_,
            "--net-out",
            out_dir + "/net.net",
            "--config",
            config_,
            "--checkpoint",
            out_dir + "/train.ckpt",
            "--log",
            out_dir + "/log.csv",
            "--threads",
            "1"};
  }

  // One process, with `extra` arguments; returns its exit code.
  int RunOne(const std::string& out_dir,
             const std::vector<std::string>& extra = {}) {
    std::filesystem::create_directories(out_dir);
    std::vector<std::string> args = TrainArgs(out_dir);
    args.insert(args.end(), extra.begin(), extra.end());
    const Child c = Spawn(args, out_dir + "/out.txt", out_dir + "/err.txt");
    const int code = Wait(c);
    EXPECT_EQ(code, 0) << Slurp(c.err);
    return code;
  }

  std::vector<std::string> RankArgs(const std::string& out_dir, int rank,
                                    int port, int timeout_s = 120) const {
    std::vector<std::string> args = TrainArgs(out_dir);
    args.insert(args.end(),
                {"--world-size", "2", "--rank", std::to_string(rank),
                 "--master", Cat("127.0.0.1:", port), "--dist-timeout-s",
                 std::to_string(timeout_s)});
    return args;
  }

  // Rank 0 writing into `out0`, rank 1 into `out1` (where it must write
  // nothing); tried again on another port when rank 0 finds its port taken.
  void RunTwo(const std::string& out0, const std::string& out1) {
    std::filesystem::create_directories(out0);
    std::filesystem::create_directories(out1);
    for (int attempt = 0;; ++attempt) {
      const int port = FreePort();
      const Child r0 =
          Spawn(RankArgs(out0, 0, port), out0 + "/out.txt", out0 + "/err.txt");
      const Child r1 =
          Spawn(RankArgs(out1, 1, port), out1 + "/out.txt", out1 + "/err.txt");
      const int code0 = Wait(r0);
      const int code1 = Wait(r1);
      if (code0 != 0 && attempt < 3 &&
          Slurp(r0.err).find("ddress already in use") != std::string::npos) {
        continue;
      }
      ASSERT_EQ(code0, 0) << Slurp(r0.err);
      ASSERT_EQ(code1, 0) << Slurp(r1.err);
      return;
    }
  }

  ScopedTempDir dir_;
  std::string records_, net_, config_;
};

// The largest absolute difference between two nets' tensors.
double MaxAbsDiff(const std::string& a_path, const std::string& b_path) {
  absl::StatusOr<nn::NetworkWeights> a = nn::ReadNetworkWeights(a_path);
  absl::StatusOr<nn::NetworkWeights> b = nn::ReadNetworkWeights(b_path);
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(b.ok()) << b.status();
  if (!a.ok() || !b.ok()) return INFINITY;
  EXPECT_EQ(a->tensors.size(), b->tensors.size());
  double diff = 0;
  for (size_t i = 0; i < a->tensors.size() && i < b->tensors.size(); ++i) {
    const nn::TensorData& x = a->tensors[i];
    const nn::TensorData& y = b->tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.values.size(), y.values.size());
    for (size_t j = 0; j < x.values.size() && j < y.values.size(); ++j) {
      diff = std::max(diff, std::fabs(static_cast<double>(x.values[j]) -
                                      static_cast<double>(y.values[j])));
    }
  }
  return diff;
}

// The log's lines without the last two columns (samples/s and load wait,
// which are timings).
std::vector<std::string> LogRows(const std::string& path) {
  std::vector<std::string> rows;
  const std::string text = Slurp(path);
  for (std::string_view line : Split(text, "\n", true)) {
    if (line.empty()) continue;
    std::string row(line);
    for (int i = 0; i < 2; ++i) row.resize(row.rfind(','));
    rows.push_back(row);
  }
  return rows;
}

// Two ranks of batch 8 each train as one process of batch 16: batch norm
// with the global batch's statistics, the gradients averaged. They differ
// from it in rounding only: the synchronised batch norm and the averaged
// gradients sum in another order, about 1e-7 relative per step; over 8 SGD
// steps of a net whose weights are below 1 that stays far below 1e-4,
// while a single process with batch 8 (what a rank alone would do) is
// orders of magnitude further away.
TEST_F(DistributedTrainingTest, TwoProcessesTrainAsOneWithTheWholeBatch) {
  const std::string one = dir_.File("one"), half = dir_.File("half");
  const std::string two0 = dir_.File("two0"), two1 = dir_.File("two1");
  RunOne(one);
  RunOne(half, {"--batch", "8"});
  RunTwo(two0, two1);

  const double diff = MaxAbsDiff(one + "/net.net", two0 + "/net.net");
  std::printf(
      "max |one process, batch 16 - two processes, batch 8 each| = "
      "%.3g\n",
      diff);
  EXPECT_LE(diff, 1e-4);
  EXPECT_GT(MaxAbsDiff(one + "/net.net", half + "/net.net"), 1e-3);

  // Rank 0 logged every step, with the global batch's losses; rank 1 wrote
  // nothing of the run.
  const std::vector<std::string> log_one = LogRows(one + "/log.csv");
  const std::vector<std::string> log_two = LogRows(two0 + "/log.csv");
  ASSERT_EQ(log_one.size(), 9u);
  ASSERT_EQ(log_two.size(), 9u);
  for (size_t i = 1; i < log_one.size(); ++i) {
    const std::vector<std::string_view> a = Split(log_one[i], ",", false);
    const std::vector<std::string_view> b = Split(log_two[i], ",", false);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(a[0], b[0]);  // step
    // The total loss, with 6 significant digits in the log.
    EXPECT_NEAR(std::stod(std::string(a[4])), std::stod(std::string(b[4])),
                1e-3)
        << "step " << a[0];
  }
  EXPECT_TRUE(std::filesystem::exists(two0 + "/train.ckpt"));
  for (const char* name : {"net.net", "train.ckpt", "log.csv"}) {
    EXPECT_FALSE(std::filesystem::exists(Cat(two1, "/", name))) << name;
  }
  EXPECT_TRUE(Contains(Slurp(two1 + "/out.txt"), "rank 1 of 2: trained 8"));
}

// A rank killed in the middle: rank 0 fails at its next exchange; both
// started again resume from rank 0's checkpoint, and the result is the
// uninterrupted run's, bit for bit (the same bytes reach both ranks, and
// the all-reduces of two ranks add in one order).
TEST_F(DistributedTrainingTest, ResumeAfterARankIsKilledIsTheUninterruptedRun) {
  const std::string whole0 = dir_.File("whole0"), whole1 = dir_.File("whole1");
  RunTwo(whole0, whole1);

  const std::string cut0 = dir_.File("cut0"), cut1 = dir_.File("cut1");
  std::filesystem::create_directories(cut0);
  std::filesystem::create_directories(cut1);
  const int port = FreePort();
  const Child r0 = Spawn(RankArgs(cut0, 0, port), cut0 + "/out.txt",
                         cut0 + "/err.txt", /*pipe_stdout=*/true);
  const Child r1 =
      Spawn(RankArgs(cut1, 1, port), cut1 + "/out.txt", cut1 + "/err.txt");
  // Rank 0 prints step 5's line after the checkpoint of step 4; rank 1
  // cannot be past step 6 then, nor rank 0 finish without it.
  std::string seen;
  const bool reached = ReadUntilLine(r0.out_pipe, "step 5 ", &seen);
  kill(r1.pid, SIGKILL);
  DrainAndClose(r0.out_pipe, &seen);
  EXPECT_EQ(Wait(r1), -1);
  const int code0 = Wait(r0);
  ASSERT_TRUE(reached) << seen << Slurp(cut0 + "/err.txt");
  EXPECT_NE(code0, 0) << seen;
  const std::string err0 = Slurp(cut0 + "/err.txt");
  EXPECT_TRUE(Contains(err0, "rank 0 of 2")) << err0;
  EXPECT_FALSE(std::filesystem::exists(cut0 + "/net.net"));

  RunTwo(cut0, cut1);
  EXPECT_TRUE(Contains(Slurp(cut0 + "/out.txt"),
                       "resumed from " + cut0 + "/train.ckpt"));
  EXPECT_EQ(MaxAbsDiff(whole0 + "/net.net", cut0 + "/net.net"), 0.0);
  EXPECT_EQ(LogRows(cut0 + "/log.csv"), LogRows(whole0 + "/log.csv"));
}

TEST_F(DistributedTrainingTest, BadSettingsFailWithOneLineNamingThem) {
  const std::string out = dir_.File("out");
  std::filesystem::create_directories(out);
  std::string base;
  for (const std::string& a : TrainArgs(out)) Append(&base, " '", a, "'");
  struct Case {
    std::string args, env, needle;
  };
  const std::vector<Case> cases = {
      {"--world-size 2 --rank 2 --master 127.0.0.1:29500", "",
       "rank 2 is not below the world size 2"},
      {"--world-size 65", "", "--world-size"},
      {"--world-size 2 --master 127.0.0.1", "", "--master: expected ADDR:PORT"},
      {"--world-size 2 --master 127.0.0.1:99999", "", "--master"},
      {"", "WORLD_SIZE=2 RANK=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500",
       "environment variable RANK"},
      {"--world-size 3 --master 127.0.0.1:29500", "",
       "training.batch_size 16 is not a multiple of the world size 3"},
  };
  for (const Case& c : cases) {
    const RunResult r = Volkhv(base + " " + c.args, c.env);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_TRUE(Contains(r.err, c.needle)) << c.args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(std::filesystem::is_empty(out)) << c.args;
  }
#if !VOLKHV_TORCH_CUDA
  const RunResult nccl =
      Volkhv(Cat(base, " --world-size 2 --master 127.0.0.1:", FreePort(),
                 " --dist-backend nccl"));
  EXPECT_NE(nccl.exit_code, 0);
  EXPECT_TRUE(Contains(nccl.err, "NCCL needs a CUDA build"));
#endif
}

// Rank 0 waiting for a rank 1 that never comes, and rank 1 for a rank 0
// that never listens: each fails after its --dist-timeout-s, never hangs,
// and writes nothing.
TEST_F(DistributedTrainingTest, ARendezvousThatNeverCompletesFails) {
  for (int rank : {0, 1}) {
    const std::string out = dir_.File(Cat("alone", rank));
    std::filesystem::create_directories(out);
    const Child c = Spawn(RankArgs(out, rank, FreePort(), /*timeout_s=*/3),
                          out + "/out.txt", out + "/err.txt");
    EXPECT_EQ(Wait(c), 1);
    const std::string err = Slurp(out + "/err.txt");
    EXPECT_TRUE(Contains(err, Cat("rank ", rank,
                                  " of 2: the rendezvous at "
                                  "127.0.0.1:")));
    EXPECT_TRUE(Contains(err, "did not complete within 3 s"));
    EXPECT_FALSE(std::filesystem::exists(out + "/train.ckpt"));
    EXPECT_FALSE(std::filesystem::exists(out + "/net.net"));
  }
}

// ---------------------------------------------------------------------------
// The synchronised batch norm, in a group of one: LibTorch's batch norm,
// forward, backward and running statistics, up to rounding.
TEST(SyncBatchNormTest, OneRankIsLibTorchsBatchNorm) {
  if (!kHaveGloo) GTEST_SKIP() << "built without Gloo (libgloo-dev)";
  DistributedOptions options;
  options.world_size = 1;
  options.master_host = "127.0.0.1";
  options.master_port = FreePort();
  options.timeout_seconds = 60;
  absl::StatusOr<std::unique_ptr<ProcessGroup>> group =
      ProcessGroup::Connect(options);
  ASSERT_TRUE(group.ok()) << group.status();

  torch::manual_seed(5);
  torch::nn::BatchNorm2d plain(torch::nn::BatchNorm2dOptions(3).eps(1e-5));
  torch::nn::BatchNorm2d synced(torch::nn::BatchNorm2dOptions(3).eps(1e-5));
  {
    torch::NoGradGuard no_grad;
    plain->weight.uniform_(0.5, 1.5);
    plain->bias.uniform_(-0.5, 0.5);
    synced->weight.copy_(plain->weight);
    synced->bias.copy_(plain->bias);
  }
  const nn::BatchNormFunction f = SyncBatchNorm(group->get());
  for (int step = 0; step < 3; ++step) {
    torch::Tensor x = torch::randn({6, 3, 4, 5}) * 2 + 1;
    torch::Tensor x1 = x.clone().requires_grad_(true);
    torch::Tensor x2 = x.clone().requires_grad_(true);
    torch::Tensor w = torch::randn({6, 3, 4, 5});
    torch::Tensor y1 = plain(x1);
    torch::Tensor y2 = f(*synced, x2);
    EXPECT_LT((y1 - y2).abs().max().item<double>(), 1e-5);
    (y1 * w).sum().backward();
    (y2 * w).sum().backward();
    EXPECT_LT((x1.grad() - x2.grad()).abs().max().item<double>(), 1e-5);
    EXPECT_LT((plain->weight.grad() - synced->weight.grad())
                  .abs()
                  .max()
                  .item<double>(),
              1e-4);
    EXPECT_LT(
        (plain->bias.grad() - synced->bias.grad()).abs().max().item<double>(),
        1e-4);
    EXPECT_LT(
        (plain->running_mean - synced->running_mean).abs().max().item<double>(),
        1e-6);
    EXPECT_LT(
        (plain->running_var - synced->running_var).abs().max().item<double>(),
        1e-5);
    EXPECT_EQ(plain->num_batches_tracked.item<int64_t>(),
              synced->num_batches_tracked.item<int64_t>());
  }
}

}  // namespace
}  // namespace volkhv::training
