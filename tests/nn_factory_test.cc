// The evaluator factory (nn/evaluator_factory.h): config checks that name
// the field, the backend choice, net names (a file, auto, random), the
// evaluator each makes, and the caching factory.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/games/games.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "nn/batching_evaluator.h"
#include "nn/bundled_net.h"
#include "nn/eigen_backend.h"
#include "nn/evaluator_factory.h"
#include "nn/torch_weights.h"
#include "nn/weights_file.h"
#include "tests/game_fixtures.h"
#include "tests/test_toolkit.h"

namespace volkhv::nn {
namespace {

using ::volkhv::testing::Contains;
using ::volkhv::testing::NewGame;
using ::volkhv::testing::RandomPositions;
using ::volkhv::testing::ScopedTempDir;
using ::volkhv::testing::TempPath;

// A config the tests can run anywhere: eigen on one thread.
proto::EvaluatorConfig SmallCpuConfig() {
  proto::EvaluatorConfig config;
  config.set_backend("eigen");
  config.set_threads(1);
  config.set_max_batch(16);
  return config;
}

// A generation-0 net of `game` (1 block of 8 filters) written to `path`.
void WriteTinyNet(const std::string& game, const std::string& path) {
  proto::NetworkConfig config;
  proto::Architecture* a = config.mutable_architecture();
  a->set_blocks(1);
  a->set_filters(8);
  a->set_se_ratio(2);
  a->set_policy_head_filters(8);
  a->set_value_head_filters(2);
  a->set_value_hidden(8);
  absl::StatusOr<proto::NetworkFile> header = NewNetworkHeader(
      NewGame(game)->Info(), "", config, 7, "nn_factory_test", "");
  ASSERT_TRUE(header.ok()) << header.status();
  absl::StatusOr<NetworkWeights> weights = RandomNetworkWeights(*header, 7);
  ASSERT_TRUE(weights.ok()) << weights.status();
  ASSERT_TRUE(WriteNetworkWeights(*weights, path).ok());
}

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

TEST(ValidateEvaluatorConfigTest, DefaultsAndTheCommandLinesValuesPass) {
  EXPECT_TRUE(ValidateEvaluatorConfig(proto::EvaluatorConfig()).ok());
  proto::EvaluatorConfig config;
  config.set_threads(0);  // the command line's default: one per core
  config.set_precision("bf16");
  config.set_device("cuda:1");
  EXPECT_TRUE(ValidateEvaluatorConfig(config).ok());
  EXPECT_TRUE(ValidateEvaluatorConfig(SmallCpuConfig()).ok());
}

TEST(ValidateEvaluatorConfigTest, BadFieldsAreRefusedNamingTheField) {
  struct Case {
    const char* field;
    std::function<void(proto::EvaluatorConfig*)> set;
    const char* message;
  };
  const Case cases[] = {
      {"backend", [](auto* c) { c->set_backend("junk"); },
       "backend: unknown backend 'junk' (known: auto, eigen, torch)"},
      {"max_batch", [](auto* c) { c->set_max_batch(0); },
       "max_batch: must be in [1, 4096], got 0"},
      {"max_batch", [](auto* c) { c->set_max_batch(4097); },
       "max_batch: must be in [1, 4096], got 4097"},
      {"threads", [](auto* c) { c->set_threads(-1); },
       "threads: must be in [0, 1024], got -1"},
      {"max_wait_us", [](auto* c) { c->set_max_wait_us(10000001); },
       "max_wait_us: must be in [0, 10000000], got 10000001"},
      {"cache_entries", [](auto* c) { c->set_cache_entries(-5); },
       "cache_entries: must be in [0, 67108864], got -5"},
      {"precision", [](auto* c) { c->set_precision("fp8"); },
       "precision: unknown precision 'fp8' (known: fp32, bf16, fp16)"},
      {"precision",
       [](auto* c) {
         c->set_backend("eigen");
         c->set_precision("fp16");
       },
       "precision: the eigen backend computes in fp32 only, not fp16 (use "
       "backend: \"torch\")"},
      {"backend",
       [](auto* c) {
         c->set_backend("eigen");
         c->set_device("cuda");
       },
       "backend: the eigen backend runs on the CPU, not on device 'cuda'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    proto::EvaluatorConfig config;
    c.set(&config);
    const absl::Status status = ValidateEvaluatorConfig(config);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(Message(status), c.message);
    // A loop config's names: the section's prefix.
    EXPECT_EQ(
        Message(ValidateEvaluatorConfig(config, ConfigFileNames("evaluator."))),
        Cat("evaluator.", c.message));
  }
}

TEST(ValidateEvaluatorConfigTest, NamesComeFromTheCaller) {
  const EvaluatorConfigNames flags{
      [](std::string_view field) { return Cat("option '--", field, "'"); },
      [](std::string_view field, std::string_view value) {
        return Cat("--", field, " ", value);
      }};
  proto::EvaluatorConfig config;
  config.set_backend("eigen");
  config.set_precision("bf16");
  EXPECT_EQ(Message(ValidateEvaluatorConfig(config, flags)),
            "option '--precision': the eigen backend computes in fp32 only, "
            "not bf16 (use --backend torch)");
  // The string fields are checked before the numbers.
  config.set_max_batch(0);
  EXPECT_TRUE(Contains(Message(ValidateEvaluatorConfig(config, flags)),
                       "option '--precision'"));
}

TEST(AutoCpuBackendTest, EigenWhereItsDirectKernelsRunElseTorch) {
  EXPECT_EQ(AutoCpuBackend("avx512"), "eigen");
  EXPECT_EQ(AutoCpuBackend("avx2"), "eigen");
  EXPECT_EQ(AutoCpuBackend("eigen"), "torch");
  EXPECT_EQ(AutoCpuBackend(), AutoCpuBackend(EigenDefaultKernel()));
}

TEST(MakeBackendTest, RunsTheBackendTheConfigNames) {
  const std::string path = TempPath("factory_backend.net");
  WriteTinyNet("tavlei9", path);
  absl::StatusOr<NetworkWeights> weights = ReadNetworkWeights(path);
  ASSERT_TRUE(weights.ok()) << weights.status();
  proto::EvaluatorConfig config = SmallCpuConfig();
  absl::StatusOr<std::unique_ptr<Backend>> backend =
      MakeBackend(config, *weights);
  ASSERT_TRUE(backend.ok()) << backend.status();
  EXPECT_EQ((*backend)->Info().name, "eigen");
  config.set_backend("torch");
  backend = MakeBackend(config, *weights);
  ASSERT_TRUE(backend.ok()) << backend.status();
  EXPECT_EQ((*backend)->Info().name, "torch-cpu");
  // auto on the CPU in fp32: AutoCpuBackend's choice.
  config.set_backend("auto");
  backend = MakeBackend(config, *weights);
  ASSERT_TRUE(backend.ok()) << backend.status();
  EXPECT_EQ((*backend)->Info().name,
            AutoCpuBackend() == "eigen" ? "eigen" : "torch-cpu");
  config.set_backend("junk");
  backend = MakeBackend(config, *weights);
  ASSERT_FALSE(backend.ok());
  EXPECT_TRUE(Message(backend.status()).starts_with("backend: "))
      << Message(backend.status());
  std::remove(path.c_str());
}

TEST(MakeEvaluatorTest, RandomIsUniformWithoutStatistics) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  absl::StatusOr<std::shared_ptr<Evaluator>> evaluator =
      MakeEvaluator(proto::EvaluatorConfig(), "random", *game);
  ASSERT_TRUE(evaluator.ok()) << evaluator.status();
  EXPECT_NE(dynamic_cast<UniformEvaluator*>(evaluator->get()), nullptr);
  EXPECT_FALSE((*evaluator)->Stats().has_value());
}

TEST(MakeEvaluatorTest, ABadConfigIsRefusedNamingTheField) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  proto::EvaluatorConfig config;
  config.set_backend("junk");
  absl::StatusOr<std::shared_ptr<Evaluator>> evaluator =
      MakeEvaluator(config, "random", *game);
  ASSERT_FALSE(evaluator.ok());
  EXPECT_EQ(evaluator.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(evaluator.status()),
            "backend: unknown backend 'junk' (known: auto, eigen, torch)");
  config = proto::EvaluatorConfig();
  config.set_max_batch(0);
  evaluator = MakeEvaluator(config, "/nonexistent.net", *game);
  ASSERT_FALSE(evaluator.ok());
  EXPECT_EQ(Message(evaluator.status()),
            "max_batch: must be in [1, 4096], got 0");
  evaluator = MakeEvaluatorFactory(config)("random", *game);
  ASSERT_FALSE(evaluator.ok());
  EXPECT_TRUE(Message(evaluator.status()).starts_with("max_batch: "));
}

// A net file is served by a batching evaluator, whose Stats() count the
// positions it evaluated.
TEST(MakeEvaluatorTest, AFileIsServedBehindABatchingEvaluator) {
  const std::string path = TempPath("factory_tavlei9.net");
  WriteTinyNet("tavlei9", path);
  std::unique_ptr<Game> game = NewGame("tavlei9");
  proto::EvaluatorConfig config = SmallCpuConfig();
  config.set_cache_entries(0);
  absl::StatusOr<std::shared_ptr<Evaluator>> evaluator =
      MakeEvaluatorFactory(config)(path, *game);
  ASSERT_TRUE(evaluator.ok()) << evaluator.status();
  EXPECT_NE(dynamic_cast<BatchingEvaluator*>(evaluator->get()), nullptr);
  const std::vector<std::unique_ptr<GameState>> states =
      RandomPositions(*game, 6, 3, /*keep_one_in=*/1, /*max_plies=*/40);
  std::vector<MoveList> moves(states.size());
  std::vector<EvalRequest> requests;
  for (size_t i = 0; i < states.size(); ++i) {
    states[i]->LegalMoves(&moves[i]);
    if (moves[i].empty()) continue;
    requests.push_back({states[i].get(), &moves[i]});
  }
  ASSERT_FALSE(requests.empty());
  std::vector<Evaluation> results(requests.size());
  (*evaluator)->Evaluate(requests, results);
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(results[i].priors.size(), requests[i].legal_moves->size());
    EXPECT_NEAR(results[i].wdl[0] + results[i].wdl[1] + results[i].wdl[2], 1,
                1e-5);
  }
  const std::optional<EvaluatorStats> stats = (*evaluator)->Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->positions, static_cast<int64_t>(requests.size()));
  EXPECT_GE(stats->batches, 1);
  EXPECT_EQ(stats->cache_hits, 0);
  std::remove(path.c_str());
}

TEST(MakeEvaluatorTest, ErrorsNameTheFile) {
  std::unique_ptr<Game> game = NewGame("tavreli");
  absl::StatusOr<std::shared_ptr<Evaluator>> evaluator =
      MakeEvaluator(SmallCpuConfig(), "/nonexistent/x.net", *game);
  ASSERT_FALSE(evaluator.ok());
  EXPECT_TRUE(Contains(Message(evaluator.status()), "/nonexistent/x.net"));
  // A net of another game.
  const std::string path = TempPath("factory_other_game.net");
  WriteTinyNet("tavlei9", path);
  evaluator = MakeEvaluator(SmallCpuConfig(), path, *game);
  ASSERT_FALSE(evaluator.ok());
  EXPECT_TRUE(Contains(Message(evaluator.status()), path));
  EXPECT_TRUE(Contains(Message(evaluator.status()), "tavlei9"));
  std::remove(path.c_str());
}

// `auto`: the bundled net of $VOLKHV_NETS, announced once per process and
// file; without one, NotFound saying that random plays without a net.
TEST(MakeEvaluatorTest, AutoIsTheBundledNetAnnouncedOnce) {
  ScopedTempDir nets;
  WriteTinyNet("tavlei9", nets.File("tavlei9.net"));
  const char* before = std::getenv("VOLKHV_NETS");
  const std::optional<std::string> saved =
      before ? std::optional<std::string>(before) : std::nullopt;
  ASSERT_EQ(setenv("VOLKHV_NETS", nets.path().c_str(), 1), 0);
  std::unique_ptr<Game> tavlei9 = NewGame("tavlei9");
  EXPECT_EQ(*ResolveNet("auto", *tavlei9), nets.File("tavlei9.net"));
  EXPECT_EQ(*ResolveNet("random", *tavlei9), "random");
  EXPECT_EQ(*ResolveNet("/x/y.net", *tavlei9), "/x/y.net");

  ::testing::internal::CaptureStderr();
  absl::StatusOr<std::shared_ptr<Evaluator>> first =
      MakeEvaluator(SmallCpuConfig(), "auto", *tavlei9);
  absl::StatusOr<std::shared_ptr<Evaluator>> second =
      MakeEvaluator(SmallCpuConfig(), "auto", *tavlei9);
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(first->get(), second->get());  // no cache here
  EXPECT_EQ(said, "volkhv: net auto: " + nets.File("tavlei9.net") +
                      " (tavlei9, generation 0)\n");

  std::unique_ptr<Game> tavreli = NewGame("tavreli");
  absl::StatusOr<std::shared_ptr<Evaluator>> missing =
      MakeEvaluator(SmallCpuConfig(), "auto", *tavreli);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Contains(Message(missing.status()), nets.File("tavreli.net")));
  EXPECT_TRUE(Contains(Message(missing.status()), "--net random"));
  if (saved) {
    setenv("VOLKHV_NETS", saved->c_str(), 1);
  } else {
    unsetenv("VOLKHV_NETS");
  }
}

// A factory that counts its calls and fails for net "bad".
struct CountingFactory {
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  EvaluatorFactory Factory() const {
    return [calls = calls](
               const std::string& net,
               const Game&) -> absl::StatusOr<std::shared_ptr<Evaluator>> {
      ++*calls;
      if (net == "bad") return absl::NotFoundError("bad: no such net");
      return std::make_shared<UniformEvaluator>();
    };
  }
};

TEST(CachingEvaluatorFactoryTest, LoadsEachNetOnceAndKeepsTheRecentOnes) {
  std::unique_ptr<Game> tavreli = NewGame("tavreli");
  std::unique_ptr<Game> tavlei9 = NewGame("tavlei9");
  CountingFactory counting;
  const EvaluatorFactory cached =
      CachingEvaluatorFactory(counting.Factory(), /*keep=*/2);
  const std::shared_ptr<Evaluator> a = *cached("a", *tavreli);
  EXPECT_EQ(*cached("a", *tavreli), a);
  EXPECT_EQ(*counting.calls, 1);
  // Another game is another evaluator.
  EXPECT_NE(*cached("a", *tavlei9), a);
  EXPECT_EQ(*counting.calls, 2);
  // Errors are not kept.
  EXPECT_FALSE(cached("bad", *tavreli).ok());
  EXPECT_FALSE(cached("bad", *tavreli).ok());
  EXPECT_EQ(*counting.calls, 4);
  // a (tavreli) was used before a (tavlei9): a third net drops it.
  const std::shared_ptr<Evaluator> b = *cached("b", *tavreli);
  EXPECT_EQ(*counting.calls, 5);
  EXPECT_EQ(*cached("b", *tavreli), b);
  EXPECT_EQ(*counting.calls, 5);
  EXPECT_NE(*cached("a", *tavreli), a);
  EXPECT_EQ(*counting.calls, 6);

  // keep = 0: every one stays.
  CountingFactory all;
  const EvaluatorFactory keep_all = CachingEvaluatorFactory(all.Factory());
  for (int round = 0; round < 2; ++round) {
    for (const char* net : {"x", "y", "z", "w"}) {
      ASSERT_TRUE(keep_all(net, *tavreli).ok());
    }
  }
  EXPECT_EQ(*all.calls, 4);
}

}  // namespace
}  // namespace volkhv::nn
