// The Eigen backend (nn/eigen_backend.h) against LibTorch's module: the same
// policy logits, WDL and moves left (nets with the moves-left head; none
// written without it) for random nets of several sizes of each game, on
// encoded positions from random games, at several batch sizes, with every
// kernel this machine runs and 1 or 2 threads; rows independent of the
// batch; weights missing a tensor or misshapen rejected with a clear error.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/game/encoder.h"
#include "engine/games/games.h"
#include "engine/util/checked_file.h"
#include "gtest/gtest.h"
#include "nn/eigen_backend.h"
#include "nn/torch_backend.h"
#include "nn/torch_weights.h"
#include "nn/weights_file.h"
#include "tests/game_fixtures.h"
#include "tests/test_toolkit.h"

namespace volkhv::nn {
namespace {

using ::volkhv::testing::Contains;
using ::volkhv::testing::EncoderFor;
using ::volkhv::testing::NewGame;
using ::volkhv::testing::RandomPositions;
using ::volkhv::testing::RunResult;
using ::volkhv::testing::TempPath;
using ::volkhv::testing::Volkhv;

// |got - want| / max(|want|, 1): relative error, absolute below 1.
double Error(float got, float want) {
  return std::abs(static_cast<double>(got) - want) /
         std::max(1.0, std::abs(static_cast<double>(want)));
}

constexpr double kTolerance = 1e-4;

struct NetShape {
  std::string game;
  int blocks;
  int filters;
  int se_ratio;
  int policy_filters;  // 0 = filters
  int value_filters;
  int value_hidden;
  int moves_left_filters = 0;  // 0 = no moves-left head
  int moves_left_hidden = 0;
};

std::string Describe(const NetShape& s) {
  return s.game + " " + std::to_string(s.blocks) + "x" +
         std::to_string(s.filters) + " se_ratio " + std::to_string(s.se_ratio) +
         (s.moves_left_filters > 0 ? " moves-left head" : "");
}

// LibTorch's default initialisation with the weights scaled by sqrt(3) to
// std 1 / sqrt(fan_in), so that activations keep their size through the
// tower (logits of order 1 to 10, WDL far from saturated), then batch norm
// statistics far from the identity, so that folding matters.
NetworkWeights RandomWeights(const NetShape& s, uint64_t seed) {
  proto::NetworkFile h;
  h.set_format_version(kNetworkFileFormatVersion);
  h.set_game(s.game);
  std::unique_ptr<Encoder> encoder = EncoderFor(s.game);
  h.set_input_format_version(encoder->FormatVersion());
  h.mutable_encoder()->set_stack_layers(EncoderOptions{}.stack_layers);
  proto::Architecture* a = h.mutable_architecture();
  a->set_blocks(s.blocks);
  a->set_filters(s.filters);
  a->set_se_ratio(s.se_ratio);
  a->set_policy_head_filters(s.policy_filters);
  a->set_value_head_filters(s.value_filters);
  a->set_value_hidden(s.value_hidden);
  if (s.moves_left_filters > 0) {
    a->set_moves_left_head_filters(s.moves_left_filters);
    a->set_moves_left_hidden(s.moves_left_hidden);
  }
  SetGeometry(*encoder, a);
  absl::StatusOr<NetworkWeights> w = RandomNetworkWeights(h, seed);
  EXPECT_TRUE(w.ok()) << w.status();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  for (TensorData& t : w->tensors) {
    const std::string_view name = t.name;
    const bool bn = name.find("bn.") != name.npos ||
                    name.find(".bn1.") != name.npos ||
                    name.find(".bn2.") != name.npos;
    // LibTorch's default is uniform with std 1 / sqrt(3 fan_in).
    const bool weight = name.ends_with(".weight") && !bn;
    for (float& v : t.values) {
      if (weight) {
        v *= std::sqrt(3.0f);
      } else if (name.ends_with(".running_var")) {
        v = 1.0f + u(rng);
      } else if (name.ends_with(".running_mean") ||
                 (bn && name.ends_with(".bias"))) {
        v = u(rng);
      } else if (bn && name.ends_with(".weight")) {
        v = 1.0f + u(rng);
      }
    }
  }
  return *std::move(w);
}

// Encoded positions from random games, with their legal moves' indices.
struct Positions {
  std::vector<float> input;
  std::vector<std::vector<int>> legal;
};

Positions EncodedPositions(const std::string& game_name, const Encoder& encoder,
                           int count, uint64_t seed) {
  Positions out;
  const int size = encoder.Shape().Size();
  for (const std::unique_ptr<GameState>& state :
       RandomPositions(*NewGame(game_name), count, seed)) {
    MoveList moves;
    state->LegalMoves(&moves);
    out.input.resize(out.input.size() + size);
    encoder.Encode(*state, out.input.data() + out.input.size() - size);
    std::vector<int> indices;
    for (Move m : moves) indices.push_back(encoder.PolicyIndex(*state, m));
    out.legal.push_back(std::move(indices));
  }
  return out;
}

constexpr float kSentinel = 12345.0f;
constexpr int kGuard = 64;

struct Outputs {
  std::vector<float> policy, wdl, moves_left;  // moves_left: with the head
};

// Runs `batch` positions starting at position `first`; the output buffers
// carry a guard band that must stay untouched.
Outputs Evaluate(Backend& backend, const Positions& positions, int first,
                 int batch) {
  const BackendInfo& info = backend.Info();
  Outputs out;
  out.policy.assign(static_cast<size_t>(batch) * info.policy_size + kGuard,
                    kSentinel);
  out.wdl.assign(static_cast<size_t>(batch) * 3 + kGuard, kSentinel);
  out.moves_left.assign(static_cast<size_t>(batch) + kGuard, kSentinel);
  backend.Compute(batch, positions.input.data() + first * info.input.Size(),
                  out.policy.data(), out.wdl.data(), out.moves_left.data());
  for (int i = 0; i < kGuard; ++i) {
    EXPECT_EQ(out.policy[batch * info.policy_size + i], kSentinel);
    EXPECT_EQ(out.wdl[batch * 3 + i], kSentinel);
    EXPECT_EQ(out.moves_left[batch + i], kSentinel);
  }
  out.policy.resize(static_cast<size_t>(batch) * info.policy_size);
  out.wdl.resize(static_cast<size_t>(batch) * 3);
  if (info.moves_left) {
    out.moves_left.resize(batch);
  } else {
    // A net without the head leaves the buffer alone.
    for (int p = 0; p < batch; ++p) EXPECT_EQ(out.moves_left[p], kSentinel);
    out.moves_left.clear();
  }
  return out;
}

std::vector<std::string> Kernels() {
  std::vector<std::string> kernels;
  for (const std::string k : {"avx512", "avx2", "eigen"}) {
    if (EigenKernelAvailable(k)) kernels.push_back(k);
  }
  return kernels;
}

std::unique_ptr<Backend> MakeEigen(const NetworkWeights& w,
                                   const std::string& kernel, int threads,
                                   int chunk = 0, bool winograd = true) {
  EigenBackendOptions options;
  options.kernel = kernel;
  options.threads = threads;
  options.chunk = chunk;
  options.winograd = winograd;
  absl::StatusOr<std::unique_ptr<Backend>> b = MakeEigenBackend(w, options);
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *std::move(b) : nullptr;
}

// The reference: the nn/network.h module in eval mode (BN not folded).
std::unique_ptr<Backend> MakeReference(const NetworkWeights& w) {
  TorchBackendOptions options;
  options.threads = 1;
  options.fold_batchnorm = false;
  absl::StatusOr<std::unique_ptr<Backend>> b = MakeTorchBackend(w, options);
  EXPECT_TRUE(b.ok()) << b.status();
  return *std::move(b);
}

struct Errors {
  double legal = 0;   // policy logits at the legal moves' indices
  double policy = 0;  // every policy logit
  double wdl = 0;
  double moves_left = 0;
};

Errors Compare(const Outputs& got, const Outputs& want,
               const Positions& positions, int first, int policy_size) {
  Errors e;
  const int batch = static_cast<int>(got.wdl.size() / 3);
  for (int p = 0; p < batch; ++p) {
    const float* g = got.policy.data() + static_cast<size_t>(p) * policy_size;
    const float* w = want.policy.data() + static_cast<size_t>(p) * policy_size;
    for (int index : positions.legal[first + p]) {
      e.legal = std::max(e.legal, Error(g[index], w[index]));
    }
  }
  for (size_t i = 0; i < got.policy.size(); ++i) {
    if (!std::isfinite(got.policy[i])) {
      e.policy = std::numeric_limits<double>::infinity();
      break;
    }
    e.policy = std::max(e.policy, Error(got.policy[i], want.policy[i]));
  }
  for (size_t i = 0; i < got.wdl.size(); ++i) {
    e.wdl = std::max(e.wdl, Error(got.wdl[i], want.wdl[i]));
  }
  if (got.moves_left.size() != want.moves_left.size()) {
    e.moves_left = std::numeric_limits<double>::infinity();
  }
  for (size_t i = 0; i < got.moves_left.size(); ++i) {
    e.moves_left = std::max(e.moves_left,
                            got.moves_left[i] >= 0
                                ? Error(got.moves_left[i], want.moves_left[i])
                                : std::numeric_limits<double>::infinity());
  }
  return e;
}

// ---------------------------------------------------------------------------

class EigenMatchesTorchTest : public ::testing::TestWithParam<NetShape> {};

TEST_P(EigenMatchesTorchTest, SameOutputsAtBatchOneThreeSeventeen) {
  const NetShape shape = GetParam();
  const NetworkWeights w = RandomWeights(shape, 17);
  std::unique_ptr<Encoder> encoder = EncoderFor(shape.game);
  ASSERT_TRUE(CheckNetworkFits(w, shape.game, *encoder).ok());
  const Positions positions = EncodedPositions(shape.game, *encoder, 21, 5);
  std::unique_ptr<Backend> reference = MakeReference(w);
  const int policy_size = reference->Info().policy_size;
  double worst = 0;
  for (const std::string& kernel : Kernels()) {
    for (const auto& [threads, winograd] :
         {std::pair{1, true}, std::pair{2, true}, std::pair{2, false}}) {
      std::unique_ptr<Backend> eigen =
          MakeEigen(w, kernel, threads, /*chunk=*/0, winograd);
      ASSERT_NE(eigen, nullptr);
      EXPECT_EQ(eigen->Info().name, "eigen");
      EXPECT_EQ(eigen->Info().policy_size, policy_size);
      EXPECT_EQ(eigen->Info().moves_left, shape.moves_left_filters > 0);
      EXPECT_EQ(reference->Info().moves_left, shape.moves_left_filters > 0);
      EXPECT_EQ(eigen->Info().input.Size(), encoder->Shape().Size());
      // Batches at different offsets, so that each size sees other positions.
      for (const auto& [batch, first] :
           {std::pair{1, 0}, std::pair{3, 1}, std::pair{17, 4}}) {
        const Outputs want = Evaluate(*reference, positions, first, batch);
        const Outputs got = Evaluate(*eigen, positions, first, batch);
        const Errors e = Compare(got, want, positions, first, policy_size);
        const std::string where = Describe(shape) + ", kernel " + kernel +
                                  (winograd ? " winograd, " : " direct, ") +
                                  std::to_string(threads) + " threads, batch " +
                                  std::to_string(batch);
        EXPECT_LT(e.legal, kTolerance) << where;
        EXPECT_LT(e.policy, kTolerance) << where;
        EXPECT_LT(e.wdl, kTolerance) << where;
        EXPECT_LT(e.moves_left, kTolerance) << where;
        worst = std::max({worst, e.legal, e.policy, e.wdl, e.moves_left});
        for (int p = 0; p < batch; ++p) {
          EXPECT_NEAR(got.wdl[3 * p] + got.wdl[3 * p + 1] + got.wdl[3 * p + 2],
                      1.0f, 1e-5)
              << where;
        }
      }
    }
  }
  RecordProperty("max_error", std::to_string(worst));
  std::printf("%s: max error %.3g\n", Describe(shape).c_str(), worst);
}

// game, blocks, filters, se_ratio, policy head filters (0 = filters), value
// head filters, value hidden[, moves-left head filters, moves-left hidden];
// the 6x64 tavreli net is configs/net-cpu's.
const NetShape kNets[] = {
    {"tavreli", 1, 8, 0, 0, 2, 8},          {"tavreli", 2, 16, 4, 8, 4, 16},
    {"tavreli", 3, 32, 0, 24, 8, 32},       {"tavreli", 6, 64, 4, 64, 16, 128},
    {"tavlei9", 2, 16, 4, 8, 4, 16},        {"tavlei9", 1, 8, 0, 0, 3, 8},
    {"tavlei11", 2, 16, 2, 0, 4, 24},       {"tavlei11", 3, 32, 4, 16, 8, 32},
    {"tavreli", 2, 16, 4, 8, 4, 16, 8, 32}, {"tavlei9", 1, 8, 0, 0, 3, 8, 3, 8},
};

INSTANTIATE_TEST_SUITE_P(
    Nets, EigenMatchesTorchTest, ::testing::ValuesIn(kNets),
    [](const ::testing::TestParamInfo<NetShape>& info) {
      return info.param.game + "_" + std::to_string(info.param.blocks) + "x" +
             std::to_string(info.param.filters) +
             (info.param.se_ratio > 0 ? "_se" : "") +
             (info.param.moves_left_filters > 0 ? "_moves_left" : "");
    });

// A position's outputs do not depend on the batch it is in (bit for bit
// with the direct kernels, whose arithmetic per position is fixed; within
// rounding with Eigen's products, whose blocking follows the batch).
TEST(EigenBackendTest, RowsIndependentOfBatchAndChunking) {
  const NetShape shape{"tavreli", 2, 16, 4, 8, 4, 16};
  const NetworkWeights w = RandomWeights(shape, 3);
  std::unique_ptr<Encoder> encoder = EncoderFor("tavreli");
  const Positions positions = EncodedPositions("tavreli", *encoder, 11, 9);
  for (const std::string& kernel : Kernels()) {
    std::unique_ptr<Backend> one = MakeEigen(w, kernel, 1, 1);
    std::unique_ptr<Backend> many = MakeEigen(w, kernel, 2, 4);
    ASSERT_NE(one, nullptr);
    ASSERT_NE(many, nullptr);
    const Outputs all = Evaluate(*many, positions, 0, 11);
    const int policy_size = one->Info().policy_size;
    for (int p = 0; p < 11; ++p) {
      const Outputs single = Evaluate(*one, positions, p, 1);
      for (int i = 0; i < policy_size; ++i) {
        const float a = single.policy[i], b = all.policy[p * policy_size + i];
        if (kernel == "eigen") {
          ASSERT_LT(Error(a, b), 1e-5) << kernel << " position " << p;
        } else {
          ASSERT_EQ(a, b) << kernel << " position " << p << " logit " << i;
        }
      }
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(single.wdl[k], all.wdl[3 * p + k], 1e-6) << kernel;
      }
    }
  }
}

TEST(EigenBackendTest, InfoReportsBatchSizes) {
  const NetworkWeights w = RandomWeights({"tavreli", 1, 8, 0, 0, 2, 8}, 1);
  EigenBackendOptions options;
  options.threads = 2;
  options.chunk = 4;
  options.max_batch = 100;
  absl::StatusOr<std::unique_ptr<Backend>> b = MakeEigenBackend(w, options);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->Info().name, "eigen");
  EXPECT_EQ((*b)->Info().preferred_batch, 2);
  EXPECT_EQ((*b)->Info().max_batch, 100);
  options.preferred_batch = 5;
  b = MakeEigenBackend(w, options);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->Info().preferred_batch, 5);
}

// ---------------------------------------------------------------------------
// Rejected weights and options.

std::string Error(const NetworkWeights& w,
                  const EigenBackendOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<Backend>> b = MakeEigenBackend(w, options);
  if (b.ok()) return "(accepted)";
  return std::string(b.status().message());
}

TEST(EigenBackendTest, RejectsMissingTensor) {
  for (const std::string name :
       {"input.conv.weight", "blocks.1.se.fc2.bias", "blocks.0.bn2.running_var",
        "policy.conv2.bias", "value.fc1.weight"}) {
    NetworkWeights w = RandomWeights({"tavreli", 2, 16, 4, 8, 4, 16}, 2);
    const auto it =
        std::find_if(w.tensors.begin(), w.tensors.end(),
                     [&](const TensorData& t) { return t.name == name; });
    ASSERT_NE(it, w.tensors.end()) << name;
    w.tensors.erase(it);
    EXPECT_TRUE(Contains(Error(w), "missing tensor '" + name + "'"));
  }
}

TEST(EigenBackendTest, RejectsWrongShapeOrSize) {
  NetworkWeights w = RandomWeights({"tavreli", 2, 16, 4, 8, 4, 16}, 2);
  TensorData* conv = nullptr;
  for (TensorData& t : w.tensors) {
    if (t.name == "blocks.1.conv1.weight") conv = &t;
  }
  ASSERT_NE(conv, nullptr);
  // Same number of values, another shape.
  conv->shape = {16, 16, 9, 1};
  EXPECT_TRUE(Contains(Error(w),
                       "tensor 'blocks.1.conv1.weight' has shape [16, 16, "
                       "9, 1], the architecture needs [16, 16, 3, 3]"));
  // The right shape, too few values.
  conv->shape = {16, 16, 3, 3};
  conv->values.resize(100);
  EXPECT_TRUE(Contains(Error(w),
                       "tensor 'blocks.1.conv1.weight' has 100 "
                       "values"));
  // A value that is not a number.
  conv->values.resize(16 * 16 * 9, 0.5f);
  conv->values[7] = std::nanf("");
  EXPECT_TRUE(Contains(Error(w),
                       "blocks.1.conv1.weight' value 7 is not "
                       "finite"));
  conv->values[7] = 0.5f;
  EXPECT_EQ(Error(w), "(accepted)");
  // Weights for another architecture than the header says.
  w.header.mutable_architecture()->set_filters(32);
  EXPECT_TRUE(Contains(Error(w), "the architecture needs [32, "));
  w.header.mutable_architecture()->set_filters(0);
  EXPECT_TRUE(Contains(Error(w), "architecture.filters"));
}

TEST(EigenBackendTest, RejectsBadOptions) {
  const NetworkWeights w = RandomWeights({"tavreli", 1, 8, 0, 0, 2, 8}, 1);
  EigenBackendOptions options;
  options.kernel = "cuda";
  EXPECT_TRUE(Contains(Error(w, options), "unknown kernel 'cuda'"));
  options.kernel = "auto";
  options.threads = -1;
  EXPECT_TRUE(Contains(Error(w, options), "threads must be"));
  options.threads = 1;
  options.max_batch = 0;
  EXPECT_TRUE(Contains(Error(w, options), "max_batch"));
}

// The file route the commands take: a file missing a tensor, or with one
// of the wrong shape, is rejected by ReadNetworkWeights with the path and
// the tensor named, before any backend sees it.
TEST(EigenBackendTest, DamagedFilesAreRejected) {
  const NetworkWeights w = RandomWeights({"tavreli", 1, 8, 0, 0, 2, 8}, 4);
  absl::StatusOr<std::string> bytes = SerializeNetworkWeights(w);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  proto::NetworkFile file;
  ASSERT_TRUE(file.ParseFromString(*bytes));
  file.clear_checksum();
  // A file with a correct checksum (field 15, fixed32) over other contents.
  const auto write = [](const proto::NetworkFile& f, const std::string& path) {
    std::string out = f.SerializeAsString();
    const uint32_t crc = Crc32(out);
    out.push_back(static_cast<char>((15 << 3) | 5));
    out.append(reinterpret_cast<const char*>(&crc), 4);
    std::ofstream(path, std::ios::binary) << out;
  };
  const std::string path = TempPath("checksummed.net");
  write(file, path);
  absl::StatusOr<NetworkWeights> read = ReadNetworkWeights(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(Error(*read), "(accepted)");

  proto::NetworkFile missing = file;
  const std::string name = missing.tensors(3).name();
  missing.mutable_tensors()->DeleteSubrange(3, 1);
  write(missing, path);
  read = ReadNetworkWeights(path);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(Contains(std::string(read.status().message()), path));
  EXPECT_TRUE(Contains(std::string(read.status().message()),
                       "missing tensor '" + name + "'"));

  proto::NetworkFile misshapen = file;
  proto::Tensor* t = misshapen.mutable_tensors(0);
  ASSERT_EQ(t->name(), "input.conv.weight");
  ASSERT_EQ(t->shape_size(), 4);
  t->set_shape(2, 1);
  t->set_shape(3, 9);
  write(misshapen, path);
  read = ReadNetworkWeights(path);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(Contains(std::string(read.status().message()),
                       "tensor 'input.conv.weight' has shape"));
  std::remove(path.c_str());
}

// ---------------------------------------------------------------------------
// The commands: --backend eigen wherever a net is used, and bench nn.

TEST(EigenCliTest, CommandsRunOnTheEigenBackend) {
  const NetworkWeights w = RandomWeights({"tavreli", 1, 8, 4, 0, 2, 8}, 6);
  const std::string net = TempPath("cli.net");
  ASSERT_TRUE(WriteNetworkWeights(w, net).ok());

  RunResult r = Volkhv("analyze --net " + net +
                       " --backend eigen --threads 2 --visits 60 --top 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "root: 60 visits")) << r.out;

  r = Volkhv("bench nn --net " + net +
             " --backend eigen --batch 1,3 --seconds 0.05 --no-ceiling");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "backend: eigen: Eigen ")) << r.out;
  EXPECT_TRUE(Contains(r.out, "Winograd F(4x4,3x3)")) << r.out;

  // auto says what it runs, the same at every batch size.
  r = Volkhv("bench nn --net " + net +
             " --batch 1,64 --seconds 0.05 --no-ceiling --threads 1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // (nn/evaluator_factory.cc: eigen where its direct kernels run.)
  const std::string expected =
      EigenDefaultKernel() == "eigen" ? "torch" : "eigen";
  EXPECT_TRUE(Contains(r.out, "auto: " + expected + " at every batch size"))
      << r.out;

  r = Volkhv("analyze --net " + net + " --backend eigen --device cuda");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "the eigen backend runs on the CPU")) << r.err;
  r = Volkhv("analyze --net " + net + " --backend tpu");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "known: auto, eigen, torch")) << r.err;
  std::remove(net.c_str());
}

}  // namespace
}  // namespace volkhv::nn
