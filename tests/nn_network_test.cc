// The LibTorch network, the weight files and the LibTorch backend: output
// shapes and probabilities, save -> load identity, BN folding, rejection of
// damaged or mismatched files, and configs.
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/game/encoder.h"
#include "engine/games/games.h"
#include "engine/util/checked_file.h"
#include "engine/util/files.h"
#include "gtest/gtest.h"
#include "nn/network.h"
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
using ::volkhv::testing::TempPath;

// A tiny net (2 blocks x 16 filters, SE) for `game`, with the geometry of
// this build's encoder; with a moves-left head of `moves_left_filters`
// filters and 12 hidden units when that is not 0.
proto::NetworkFile TinyHeader(const std::string& game, int se_ratio = 4,
                              int moves_left_filters = 0) {
  proto::NetworkFile h;
  h.set_format_version(kNetworkFileFormatVersion);
  h.set_game(game);
  std::unique_ptr<Encoder> encoder = EncoderFor(game);
  h.set_input_format_version(encoder->FormatVersion());
  h.mutable_encoder()->set_stack_layers(EncoderOptions{}.stack_layers);
  proto::Architecture* a = h.mutable_architecture();
  a->set_blocks(2);
  a->set_filters(16);
  a->set_se_ratio(se_ratio);
  a->set_policy_head_filters(8);
  a->set_value_head_filters(4);
  a->set_value_hidden(16);
  if (moves_left_filters > 0) {
    a->set_moves_left_head_filters(moves_left_filters);
    a->set_moves_left_hidden(12);
  }
  SetGeometry(*encoder, a);
  h.mutable_provenance()->set_generation(3);
  h.mutable_provenance()->set_note("test");
  return h;
}

// Random weights with BN statistics far from the identity, so that batch
// norm (and its folding) matters.
NetworkWeights TinyWeights(const std::string& game, uint64_t seed = 1,
                           int se_ratio = 4, int moves_left_filters = 0) {
  absl::StatusOr<NetworkWeights> w = RandomNetworkWeights(
      TinyHeader(game, se_ratio, moves_left_filters), seed);
  EXPECT_TRUE(w.ok()) << w.status();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  for (TensorData& t : w->tensors) {
    const std::string_view name = t.name;
    for (float& v : t.values) {
      if (name.ends_with(".running_var")) {
        v = 0.5f + u(rng) + 0.5f;
      } else if (name.ends_with(".running_mean") ||
                 (name.ends_with(".bias") && name.find("bn") != name.npos)) {
        v = u(rng);
      } else if (name.ends_with(".weight") && name.find("bn") != name.npos) {
        v = 1.0f + u(rng);
      }
    }
  }
  return *std::move(w);
}

std::unique_ptr<Backend> MakeBackend(const NetworkWeights& w,
                                     TorchBackendOptions options = {}) {
  options.threads = 2;
  absl::StatusOr<std::unique_ptr<Backend>> b = MakeTorchBackend(w, options);
  EXPECT_TRUE(b.ok()) << b.status();
  return *std::move(b);
}

// Positions from random games, encoded, with their legal moves.
struct Batch {
  std::vector<std::unique_ptr<GameState>> states;
  std::vector<MoveList> moves;
  std::vector<float> input;
};

Batch EncodedPositions(const std::string& game_name, const Encoder& encoder,
                       int count, uint64_t seed) {
  Batch batch;
  const int size = encoder.Shape().Size();
  for (std::unique_ptr<GameState>& state :
       RandomPositions(*NewGame(game_name), count, seed)) {
    MoveList moves;
    state->LegalMoves(&moves);
    batch.moves.push_back(moves);
    batch.input.resize(batch.input.size() + size);
    encoder.Encode(*state, batch.input.data() + batch.input.size() - size);
    batch.states.push_back(std::move(state));
  }
  return batch;
}

struct Outputs {
  // moves_left: one per position, -1 where the backend wrote none.
  std::vector<float> policy, wdl, moves_left;
};

Outputs Evaluate(Backend& backend, int batch, const std::vector<float>& input) {
  Outputs out;
  out.policy.resize(static_cast<size_t>(batch) * backend.Info().policy_size);
  out.wdl.resize(static_cast<size_t>(batch) * 3);
  out.moves_left.assign(batch, -1.0f);
  backend.Compute(batch, input.data(), out.policy.data(), out.wdl.data(),
                  out.moves_left.data());
  return out;
}

std::vector<float> RandomInput(const BackendInfo& info, int batch,
                               uint64_t seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution bit(0.2);
  std::vector<float> input(static_cast<size_t>(batch) * info.input.Size());
  for (float& v : input) v = bit(rng) ? 1.0f : 0.0f;
  return input;
}

float MaxRelativeDifference(const std::vector<float>& a,
                            const std::vector<float>& b) {
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst =
        std::max(worst, std::abs(a[i] - b[i]) / std::max(1.0f, std::abs(b[i])));
  }
  return worst;
}

// File bytes for an arbitrary NetworkFile, with a correct checksum: how a
// hand-crafted (structurally bad) file is made.
std::string WithChecksum(const proto::NetworkFile& file) {
  std::string bytes = file.SerializeAsString();
  const uint32_t crc = Crc32(bytes);
  bytes.push_back(static_cast<char>((15 << 3) | 5));
  bytes.append(reinterpret_cast<const char*>(&crc), 4);
  return bytes;
}

proto::NetworkFile ParsedFile(const NetworkWeights& w) {
  absl::StatusOr<std::string> bytes = SerializeNetworkWeights(w);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  proto::NetworkFile file;
  EXPECT_TRUE(file.ParseFromString(*bytes));
  file.clear_checksum();
  return file;
}

std::string ParseError(const std::string& bytes) {
  absl::StatusOr<NetworkWeights> w = ParseNetworkWeights(bytes);
  if (w.ok()) return "(accepted)";
  return std::string(w.status().message());
}

// ---------------------------------------------------------------------------
// Architecture, tensors, counts.

TEST(NetworkTest, ModuleTensorsAreExactlyTheSpecs) {
  for (const auto& [se_ratio, moves_left] :
       {std::pair{0, 0}, std::pair{4, 0}, std::pair{4, 3}}) {
    const proto::NetworkFile h = TinyHeader("tavreli", se_ratio, moves_left);
    Network net(h.architecture());
    std::map<std::string, std::vector<int64_t>> module;
    int64_t parameters = 0;
    for (const auto& p : net->named_parameters()) {
      module[p.key()] = p.value().sizes().vec();
      parameters += p.value().numel();
    }
    for (const auto& b : net->named_buffers()) {
      if (b.key().ends_with("num_batches_tracked")) continue;
      module[b.key()] = b.value().sizes().vec();
    }
    std::map<std::string, std::vector<int64_t>> specs;
    for (const TensorSpec& s : NetworkTensorSpecs(h.architecture())) {
      specs[s.name] = s.shape;
    }
    EXPECT_EQ(module, specs) << "se_ratio " << se_ratio;
    EXPECT_EQ(ParameterCount(h.architecture()), parameters);
    EXPECT_EQ(module.count("moves_left.fc2.bias"), moves_left > 0 ? 1u : 0u);
  }
}

TEST(NetworkTest, FlopCountByHand) {
  proto::Architecture a;
  a.set_blocks(6);
  a.set_filters(64);
  a.set_se_ratio(4);
  a.set_policy_head_filters(64);
  a.set_value_head_filters(16);
  a.set_value_hidden(128);
  a.set_input_planes(100);
  a.set_board_height(8);
  a.set_board_width(8);
  a.set_policy_channels(80);
  const int64_t macs = 64 * 100 * 9 * 64                          // input
                       + 6 * (2 * 64 * 64 * 9 * 64                // two convs
                              + 16 * 64 + 128 * 16)               // SE
                       + 64 * 64 * 9 * 64 + 80 * 64 * 64          // policy
                       + 16 * 64 * 64 + 128 * 16 * 64 + 3 * 128;  // value
  EXPECT_EQ(FlopsPerPosition(a), 2 * macs);
  a.set_moves_left_head_filters(8);
  a.set_moves_left_hidden(32);
  EXPECT_EQ(FlopsPerPosition(a),
            2 * (macs + 8 * 64 * 64 + 32 * 8 * 64 + 32));  // moves left
  EXPECT_TRUE(Contains(ArchitectureSummary(a), "moves-left head 8 -> 32 -> 1"));
  a.set_moves_left_head_filters(0);
  EXPECT_FALSE(Contains(ArchitectureSummary(a), "moves-left"));
}

// ---------------------------------------------------------------------------
// Outputs.

TEST(NetworkTest, OutputShapesAndWdlProbabilities) {
  for (const std::string game : {"tavreli", "tavlei9", "tavlei11"}) {
    const NetworkWeights w = TinyWeights(game);
    std::unique_ptr<Backend> backend = MakeBackend(w);
    const BackendInfo& info = backend->Info();
    std::unique_ptr<Encoder> encoder = EncoderFor(game);
    EXPECT_EQ(info.name, "torch-cpu");
    EXPECT_EQ(info.input.Size(), encoder->Shape().Size());
    EXPECT_EQ(info.policy_size, encoder->PolicySize());
    const int batch = 5;
    const Outputs out = Evaluate(*backend, batch, RandomInput(info, batch, 7));
    for (int i = 0; i < batch; ++i) {
      float sum = 0;
      for (int k = 0; k < 3; ++k) {
        const float p = out.wdl[3 * i + k];
        EXPECT_GE(p, 0.0f);
        EXPECT_LE(p, 1.0f);
        sum += p;
      }
      EXPECT_NEAR(sum, 1.0f, 1e-5) << game << " row " << i;
    }
    for (float v : out.policy) ASSERT_TRUE(std::isfinite(v));

    // The module agrees on the shapes.
    Network net(w.architecture());
    ASSERT_TRUE(LoadModuleWeights(w, net.get()).ok());
    net->eval();
    torch::NoGradGuard no_grad;
    const NetworkOutput o = net->forward(torch::zeros(
        {batch, info.input.planes, info.input.height, info.input.width}));
    EXPECT_EQ(o.policy.sizes().vec(),
              (std::vector<int64_t>{batch, info.policy_size}));
    EXPECT_EQ(o.wdl.sizes().vec(), (std::vector<int64_t>{batch, 3}));
    EXPECT_FALSE(o.moves_left.defined());
    EXPECT_FALSE(info.moves_left);
    for (float v : out.moves_left) EXPECT_EQ(v, -1.0f);  // not written
  }
}

// The moves-left head: plies, one per position, non-negative and not the
// same everywhere; the module and the backend agree.
TEST(NetworkTest, MovesLeftHeadGivesPliesPerPosition) {
  const NetworkWeights w = TinyWeights("tavreli", 5, 4, /*moves_left=*/3);
  std::unique_ptr<Backend> backend = MakeBackend(w);
  ASSERT_TRUE(backend->Info().moves_left);
  const int batch = 6;
  const std::vector<float> input = RandomInput(backend->Info(), batch, 3);
  const Outputs out = Evaluate(*backend, batch, input);
  Network net(w.architecture());
  ASSERT_TRUE(LoadModuleWeights(w, net.get()).ok());
  net->eval();
  torch::NoGradGuard no_grad;
  const InputShape& shape = backend->Info().input;
  const NetworkOutput o = net->forward(
      torch::from_blob(const_cast<float*>(input.data()),
                       {batch, shape.planes, shape.height, shape.width}));
  ASSERT_TRUE(o.moves_left.defined());
  ASSERT_EQ(o.moves_left.sizes().vec(), (std::vector<int64_t>{batch}));
  for (int i = 0; i < batch; ++i) {
    EXPECT_GE(out.moves_left[i], 0.0f) << i;
    EXPECT_NEAR(out.moves_left[i], o.moves_left[i].item<float>(),
                1e-4 * std::max(1.0f, out.moves_left[i]))
        << i;
  }
  EXPECT_NE(*std::min_element(out.moves_left.begin(), out.moves_left.end()),
            *std::max_element(out.moves_left.begin(), out.moves_left.end()));
}

TEST(NetworkTest, MaskedPolicyOverLegalMovesSumsToOne) {
  for (const std::string game : {"tavreli", "tavlei9"}) {
    const NetworkWeights w = TinyWeights(game, 5);
    std::unique_ptr<Encoder> encoder = EncoderFor(game);
    ASSERT_TRUE(CheckNetworkFits(w, game, *encoder).ok());
    std::unique_ptr<Backend> backend = MakeBackend(w);
    const int batch = 40;
    const Batch positions = EncodedPositions(game, *encoder, batch, 11);
    const Outputs out = Evaluate(*backend, batch, positions.input);
    const int policy_size = backend->Info().policy_size;
    for (int i = 0; i < batch; ++i) {
      const float* logits = out.policy.data() + i * policy_size;
      std::vector<float> masked;
      for (Move m : positions.moves[i]) {
        const int index = encoder->PolicyIndex(*positions.states[i], m);
        ASSERT_GE(index, 0);
        ASSERT_LT(index, policy_size);
        masked.push_back(logits[index]);
      }
      const float top = *std::max_element(masked.begin(), masked.end());
      double total = 0;
      for (float l : masked) total += std::exp(l - top);
      double sum = 0;
      for (float l : masked) {
        const double p = std::exp(l - top) / total;
        EXPECT_TRUE(std::isfinite(p));
        sum += p;
      }
      EXPECT_NEAR(sum, 1.0, 1e-6) << game << " position " << i;
    }
  }
}

TEST(NetworkTest, BatchRowsAreIndependent) {
  const NetworkWeights w = TinyWeights("tavreli", 2);
  std::unique_ptr<Backend> backend = MakeBackend(w);
  const BackendInfo& info = backend->Info();
  const int batch = 6;
  const std::vector<float> input = RandomInput(info, batch, 3);
  const Outputs all = Evaluate(*backend, batch, input);
  for (int i = 0; i < batch; ++i) {
    const std::vector<float> one(input.begin() + i * info.input.Size(),
                                 input.begin() + (i + 1) * info.input.Size());
    const Outputs single = Evaluate(*backend, 1, one);
    const std::vector<float> row(
        all.policy.begin() + i * info.policy_size,
        all.policy.begin() + (i + 1) * info.policy_size);
    EXPECT_LT(MaxRelativeDifference(single.policy, row), 1e-4) << i;
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(single.wdl[k], all.wdl[3 * i + k], 1e-5);
    }
  }
}

// Folding BN and the channels-last layout compute the module's function.
TEST(NetworkTest, FoldedBackendMatchesTheModule) {
  for (const auto& [se_ratio, moves_left] :
       {std::pair{0, 0}, std::pair{4, 0}, std::pair{0, 2}, std::pair{4, 3}}) {
    const NetworkWeights w = TinyWeights("tavreli", 9, se_ratio, moves_left);
    TorchBackendOptions unfolded;
    unfolded.fold_batchnorm = false;
    TorchBackendOptions nchw;
    nchw.channels_last = false;
    std::unique_ptr<Backend> reference = MakeBackend(w, unfolded);
    const int batch = 7;
    const std::vector<float> input = RandomInput(reference->Info(), batch, 13);
    const Outputs expected = Evaluate(*reference, batch, input);
    for (const TorchBackendOptions& options : {TorchBackendOptions{}, nchw}) {
      std::unique_ptr<Backend> backend = MakeBackend(w, options);
      const Outputs got = Evaluate(*backend, batch, input);
      EXPECT_LT(MaxRelativeDifference(got.policy, expected.policy), 1e-4)
          << "se_ratio " << se_ratio << " channels_last "
          << options.channels_last;
      EXPECT_LT(MaxRelativeDifference(got.wdl, expected.wdl), 1e-5);
      EXPECT_LT(MaxRelativeDifference(got.moves_left, expected.moves_left),
                1e-4)
          << "moves_left head " << moves_left;
      if (moves_left > 0) {
        for (float v : got.moves_left) EXPECT_GE(v, 0.0f);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Precision and devices.

// A generation-0 net of configs/net-cpu.textproto (6x64) for `game`, its
// output layers scaled up so that priors and WDL are as far from uniform
// as a trained net's (a fresh net's are nearly uniform, which would hide
// rounding).
constexpr float kOutputScale = 30;

NetworkWeights CpuConfigWeights(const std::string& game, uint64_t seed) {
  absl::StatusOr<proto::NetworkConfig> config = ReadNetworkConfig(
      std::string(VOLKHV_SOURCE_DIR) + "/configs/net-cpu.textproto");
  EXPECT_TRUE(config.ok()) << config.status();
  absl::StatusOr<std::unique_ptr<Game>> g = MakeGame(game);
  absl::StatusOr<proto::NetworkFile> header =
      NewNetworkHeader((*g)->Info(), "", *config, seed, "test", "");
  EXPECT_TRUE(header.ok()) << header.status();
  absl::StatusOr<NetworkWeights> w = RandomNetworkWeights(*header, seed);
  EXPECT_TRUE(w.ok()) << w.status();
  for (TensorData& t : w->tensors) {
    if (t.name == "policy.conv2.weight" || t.name == "value.fc2.weight") {
      for (float& v : t.values) v *= kOutputScale;
    }
  }
  return *std::move(w);
}

// How far two backends' outputs are apart on real positions: the largest
// difference of a prior (softmax over the legal moves' logits, as the
// batching evaluator computes it) and of a WDL probability.
struct Agreement {
  double prior = 0;
  double wdl = 0;
  double top_prior = 0;  // the reference's largest prior (sharpness)
};

Agreement Compare(const std::string& game, const NetworkWeights& w,
                  Backend& reference, Backend& other, int batch) {
  std::unique_ptr<Encoder> encoder = EncoderFor(game);
  const Batch positions = EncodedPositions(game, *encoder, batch, 17);
  const Outputs a = Evaluate(reference, batch, positions.input);
  const Outputs b = Evaluate(other, batch, positions.input);
  const int policy_size = reference.Info().policy_size;
  auto priors = [&](const Outputs& out, int i) {
    std::vector<double> p;
    for (Move m : positions.moves[i]) {
      p.push_back(out.policy[i * policy_size +
                             encoder->PolicyIndex(*positions.states[i], m)]);
    }
    const double top = *std::max_element(p.begin(), p.end());
    double total = 0;
    for (double& v : p) total += (v = std::exp(v - top));
    for (double& v : p) v /= total;
    return p;
  };
  Agreement worst;
  for (int i = 0; i < batch; ++i) {
    const std::vector<double> pa = priors(a, i), pb = priors(b, i);
    worst.top_prior =
        std::max(worst.top_prior, *std::max_element(pa.begin(), pa.end()));
    for (size_t k = 0; k < pa.size(); ++k) {
      worst.prior = std::max(worst.prior, std::abs(pa[k] - pb[k]));
    }
    for (int k = 0; k < 3; ++k) {
      worst.wdl = std::max<double>(
          worst.wdl, std::abs(a.wdl[3 * i + k] - b.wdl[3 * i + k]));
    }
    for (int k = 0; k < policy_size; ++k) {
      EXPECT_TRUE(std::isfinite(b.policy[i * policy_size + k]));
    }
  }
  return worst;
}

// bf16 keeps 8 bits of mantissa (relative rounding 2^-9 per operation).
// Through the 6x64 net above, bf16 on the CPU (LibTorch 1.13) was at most
// 0.011 (Tavreli) and 0.0064 (Tavlei 9x9) from float32 in a prior over the
// legal moves and 0.004 in a WDL probability, with priors up to 0.92; fp16
// keeps 2 bits more.
constexpr double kHalfPriorTolerance = 0.03;
constexpr double kHalfWdlTolerance = 0.02;

// Runs `precision` on `device` against float32 on the CPU; skips (naming
// LibTorch's reason) where this LibTorch cannot compute it there.
void ExpectHalfPrecisionAgrees(Precision precision, const std::string& device) {
  for (const std::string game : {"tavreli", "tavlei9"}) {
    const NetworkWeights w = CpuConfigWeights(game, 3);
    std::unique_ptr<Backend> reference = MakeBackend(w);
    TorchBackendOptions options;
    options.precision = precision;
    options.device = device;
    options.threads = 2;
    absl::StatusOr<std::unique_ptr<Backend>> half =
        MakeTorchBackend(w, options);
    if (!half.ok() &&
        half.status().code() == absl::StatusCode::kFailedPrecondition) {
      GTEST_SKIP() << half.status().message();
    }
    ASSERT_TRUE(half.ok()) << half.status();
    EXPECT_TRUE(Contains((*half)->Info().name, PrecisionName(precision)));
    const Agreement d = Compare(game, w, *reference, **half, 48);
    std::cout << game << " " << PrecisionName(precision) << " on " << device
              << " vs fp32 on the CPU: max |prior diff| " << d.prior
              << ", max |WDL diff| " << d.wdl << " (largest prior "
              << d.top_prior << ")\n";
    EXPECT_LT(d.prior, kHalfPriorTolerance) << game;
    EXPECT_LT(d.wdl, kHalfWdlTolerance) << game;
  }
}

TEST(PrecisionTest, NamesParseAndUnknownOnesAreRefused) {
  for (Precision p :
       {Precision::kFloat32, Precision::kBFloat16, Precision::kFloat16}) {
    absl::StatusOr<Precision> parsed = ParsePrecision(PrecisionName(p));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, p);
  }
  EXPECT_TRUE(Contains(std::string(ParsePrecision("fp8").status().message()),
                       "unknown precision 'fp8' (known: fp32, bf16, fp16)"));
  TorchBackendOptions unfolded;
  unfolded.fold_batchnorm = false;
  unfolded.precision = Precision::kBFloat16;
  EXPECT_TRUE(
      Contains(std::string(MakeTorchBackend(TinyWeights("tavreli"), unfolded)
                               .status()
                               .message()),
               "needs batch norm folded"));
}

TEST(PrecisionTest, Bf16AgreesWithFp32OnTheCpu) {
  ExpectHalfPrecisionAgrees(Precision::kBFloat16, "cpu");
}

// LibTorch 1.13 has no fp16 convolution on the CPU: creating the backend
// then fails with one line saying so, and the test skips with that line.
TEST(PrecisionTest, Fp16AgreesWithFp32OnTheCpu) {
  ExpectHalfPrecisionAgrees(Precision::kFloat16, "cpu");
}

TEST(CudaTest, Fp32OnTheGpuAgreesWithTheCpu) {
  if (!TorchCudaAvailable()) GTEST_SKIP() << "no CUDA device";
  for (const std::string game : {"tavreli", "tavlei9"}) {
    const NetworkWeights w = CpuConfigWeights(game, 5);
    std::unique_ptr<Backend> cpu = MakeBackend(w);
    TorchBackendOptions options;
    options.device = "cuda";
    std::unique_ptr<Backend> gpu = MakeBackend(w, options);
    EXPECT_EQ(gpu->Info().name, "torch-cuda");
    // cuDNN convolutions use TF32 by default (LibTorch's allow_tf32):
    // 10 bits of mantissa, so close to the CPU, not equal.
    const Agreement d = Compare(game, w, *cpu, *gpu, 64);
    std::cout << game << " fp32 on cuda vs the CPU: max |prior diff| "
              << d.prior << ", max |WDL diff| " << d.wdl << "\n";
    EXPECT_LT(d.prior, 0.01) << game;
    EXPECT_LT(d.wdl, 0.01) << game;
  }
}

TEST(CudaTest, Bf16OnTheGpuAgreesWithFp32) {
  if (!TorchCudaAvailable()) GTEST_SKIP() << "no CUDA device";
  ExpectHalfPrecisionAgrees(Precision::kBFloat16, "cuda");
}

TEST(CudaTest, Fp16OnTheGpuAgreesWithFp32) {
  if (!TorchCudaAvailable()) GTEST_SKIP() << "no CUDA device";
  ExpectHalfPrecisionAgrees(Precision::kFloat16, "cuda");
}

// ---------------------------------------------------------------------------
// Weight files.

TEST(WeightsFileTest, SaveLoadGivesBitIdenticalOutputs) {
  for (int moves_left : {0, 3}) {
    SCOPED_TRACE(moves_left > 0 ? "with the moves-left head" : "without it");
    const NetworkWeights w = TinyWeights("tavreli", 4, 4, moves_left);
    const std::string path = TempPath("roundtrip.net");
    ASSERT_TRUE(WriteNetworkWeights(w, path).ok());
    absl::StatusOr<NetworkWeights> loaded = ReadNetworkWeights(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->header.game(), "tavreli");
    EXPECT_EQ(loaded->header.provenance().generation(), 3);
    EXPECT_EQ(loaded->header.provenance().note(), "test");
    EXPECT_EQ(HasMovesLeftHead(loaded->architecture()), moves_left > 0);
    EXPECT_EQ(loaded->Find("moves_left.fc2.weight") != nullptr, moves_left > 0);
    ASSERT_EQ(loaded->tensors.size(), w.tensors.size());
    for (size_t i = 0; i < w.tensors.size(); ++i) {
      EXPECT_EQ(loaded->tensors[i].name, w.tensors[i].name);
      EXPECT_EQ(loaded->tensors[i].shape, w.tensors[i].shape);
      ASSERT_EQ(0, std::memcmp(loaded->tensors[i].values.data(),
                               w.tensors[i].values.data(),
                               w.tensors[i].values.size() * 4))
          << w.tensors[i].name;
    }
    std::unique_ptr<Backend> before = MakeBackend(w);
    std::unique_ptr<Backend> after = MakeBackend(*loaded);
    const int batch = 9;
    const std::vector<float> input = RandomInput(before->Info(), batch, 21);
    const Outputs a = Evaluate(*before, batch, input);
    const Outputs b = Evaluate(*after, batch, input);
    EXPECT_EQ(
        0, std::memcmp(a.policy.data(), b.policy.data(), a.policy.size() * 4));
    EXPECT_EQ(0, std::memcmp(a.wdl.data(), b.wdl.data(), a.wdl.size() * 4));
    EXPECT_EQ(0, std::memcmp(a.moves_left.data(), b.moves_left.data(),
                             a.moves_left.size() * 4));
    EXPECT_EQ(after->Info().moves_left, moves_left > 0);
    // The atomic write leaves no temporary file behind.
    for (const auto& entry : std::filesystem::directory_iterator(
             std::filesystem::path(path).parent_path())) {
      EXPECT_EQ(entry.path().string().find(path + ".tmp"), std::string::npos)
          << entry.path();
    }
    std::filesystem::remove(path);
  }
}

// A net written before the moves-left head existed (the bundled Tavreli
// net) reads as one without it, writes back to the very same bytes, and
// computes the same policy and value as the same net with a head added:
// the head changes nothing else.
TEST(WeightsFileTest, OldNetWithoutTheHeadLoadsAndEvaluatesAsBefore) {
  const std::string path = std::string(VOLKHV_SOURCE_DIR) + "/nets/tavreli.net";
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  absl::StatusOr<NetworkWeights> old = ParseNetworkWeights(bytes);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_FALSE(HasMovesLeftHead(old->architecture()));
  EXPECT_FALSE(old->architecture().has_moves_left_head_filters());
  EXPECT_FALSE(old->architecture().has_moves_left_hidden());
  absl::StatusOr<std::string> again = SerializeNetworkWeights(*old);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(*again == bytes) << "the file's bytes changed";

  // The same net with a random moves-left head.
  proto::NetworkFile header = old->header;
  header.mutable_architecture()->set_moves_left_head_filters(4);
  header.mutable_architecture()->set_moves_left_hidden(16);
  absl::StatusOr<NetworkWeights> random = RandomNetworkWeights(header, 7);
  ASSERT_TRUE(random.ok()) << random.status();
  NetworkWeights with_head = *old;
  with_head.header = header;
  for (const TensorData& t : random->tensors) {
    if (t.name.starts_with("moves_left.")) with_head.tensors.push_back(t);
  }
  ASSERT_TRUE(SerializeNetworkWeights(with_head).ok());
  std::unique_ptr<Backend> plain = MakeBackend(*old);
  std::unique_ptr<Backend> headed = MakeBackend(with_head);
  EXPECT_FALSE(plain->Info().moves_left);
  EXPECT_TRUE(headed->Info().moves_left);
  const int batch = 8;
  const std::vector<float> input = RandomInput(plain->Info(), batch, 11);
  const Outputs a = Evaluate(*plain, batch, input);
  const Outputs b = Evaluate(*headed, batch, input);
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_EQ(a.wdl, b.wdl);
  for (int i = 0; i < batch; ++i) {
    EXPECT_EQ(a.moves_left[i], -1.0f);
    EXPECT_GE(b.moves_left[i], 0.0f);
  }
}

TEST(WeightsFileTest, ModuleRoundTripIsExact) {
  for (int moves_left : {0, 2}) {
    const NetworkWeights w = TinyWeights("tavlei9", 6, 4, moves_left);
    Network net(w.architecture());
    ASSERT_TRUE(LoadModuleWeights(w, net.get()).ok());
    absl::StatusOr<NetworkWeights> back = WeightsFromModule(*net, w.header);
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_EQ(back->tensors.size(), w.tensors.size());
    for (size_t i = 0; i < w.tensors.size(); ++i) {
      EXPECT_EQ(back->tensors[i].name, w.tensors[i].name);
      EXPECT_EQ(back->tensors[i].values, w.tensors[i].values);
    }
  }
}

TEST(WeightsFileTest, RandomInitIsDeterministicInTheSeed) {
  const proto::NetworkFile h = TinyHeader("tavreli");
  absl::StatusOr<NetworkWeights> a = RandomNetworkWeights(h, 17);
  absl::StatusOr<NetworkWeights> b = RandomNetworkWeights(h, 17);
  absl::StatusOr<NetworkWeights> c = RandomNetworkWeights(h, 18);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->tensors[0].values, b->tensors[0].values);
  EXPECT_NE(a->tensors[0].values, c->tensors[0].values);
}

TEST(WeightsFileTest, EveryFlippedByteIsRejected) {
  const NetworkWeights w = TinyWeights("tavreli");
  absl::StatusOr<std::string> good = SerializeNetworkWeights(w);
  ASSERT_TRUE(good.ok());
  ASSERT_TRUE(ParseNetworkWeights(*good).ok());
  // Every byte of the header region, then a spread over the tensor data.
  std::vector<size_t> positions;
  for (size_t i = 0; i < std::min<size_t>(good->size(), 400); ++i) {
    positions.push_back(i);
  }
  for (size_t i = 400; i < good->size(); i += good->size() / 300 + 1) {
    positions.push_back(i);
  }
  positions.push_back(good->size() - 1);
  for (size_t i : positions) {
    for (unsigned char flip : {0x01, 0x80, 0xFF}) {
      std::string bad = *good;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      absl::StatusOr<NetworkWeights> parsed = ParseNetworkWeights(bad);
      ASSERT_FALSE(parsed.ok()) << "byte " << i << " ^ " << int(flip);
      EXPECT_EQ(std::string(parsed.status().message()).find('\n'),
                std::string::npos);
    }
  }
}

TEST(WeightsFileTest, TruncatedAndGarbageFilesAreRejected) {
  const NetworkWeights w = TinyWeights("tavreli");
  absl::StatusOr<std::string> good = SerializeNetworkWeights(w);
  ASSERT_TRUE(good.ok());
  for (size_t length : {size_t{0}, size_t{1}, size_t{4}, size_t{5}, size_t{100},
                        good->size() / 2, good->size() - 5, good->size() - 1}) {
    EXPECT_FALSE(ParseNetworkWeights(good->substr(0, length)).ok()) << length;
  }
  EXPECT_TRUE(
      Contains(ParseError(good->substr(0, good->size() / 2)), "truncated"));
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::string garbage(1 + rng() % 5000, '\0');
    for (char& c : garbage) c = static_cast<char>(rng());
    EXPECT_FALSE(ParseNetworkWeights(garbage).ok());
  }
  // Garbage with a valid checksum: the checksum does not make it a net.
  std::string garbage(3000, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  const uint32_t crc = Crc32(garbage);
  garbage.push_back(static_cast<char>((15 << 3) | 5));
  garbage.append(reinterpret_cast<const char*>(&crc), 4);
  EXPECT_FALSE(ParseNetworkWeights(garbage).ok());
  EXPECT_FALSE(ParseNetworkWeights(WithChecksum(proto::NetworkFile())).ok());

  const absl::StatusOr<NetworkWeights> missing =
      ReadNetworkWeights(TempPath("does-not-exist.net"));
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(Contains(std::string(missing.status().message()), "cannot open"));
}

TEST(WeightsFileTest, StructuralErrorsAreNamed) {
  const NetworkWeights w = TinyWeights("tavreli");
  const proto::NetworkFile good = ParsedFile(w);
  ASSERT_EQ(ParseError(WithChecksum(good)), "(accepted)");

  proto::NetworkFile f = good;
  f.set_format_version(2);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)),
                       "format version 2 is not supported"));

  f = good;
  f.mutable_tensors()->erase(f.mutable_tensors()->begin() + 5);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)),
                       "missing tensor 'blocks.0.conv1.weight'"));

  f = good;
  f.mutable_tensors(0)->set_shape(1, f.tensors(0).shape(1) - 1);
  f.mutable_tensors(0)->mutable_data()->resize(4 * f.tensors(0).shape(0) *
                                               f.tensors(0).shape(1) * 9);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)),
                       "tensor 'input.conv.weight' has shape"));

  f = good;
  f.mutable_tensors(3)->mutable_data()->resize(f.tensors(3).data().size() - 4);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)),
                       "tensor 'input.bn.running_mean' has"));

  f = good;
  *f.add_tensors() = f.tensors(1);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)), "appears twice"));

  f = good;
  proto::Tensor* extra = f.add_tensors();
  extra->set_name("extra");
  extra->add_shape(1);
  extra->set_data(std::string(4, '\0'));
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)), "unexpected tensor"));

  f = good;
  const float nan = std::nanf("");
  f.mutable_tensors(0)->mutable_data()->replace(
      8, 4, reinterpret_cast<const char*>(&nan), 4);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)), "non-finite"));

  f = good;
  f.mutable_architecture()->set_filters(0);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)), "architecture.filters"));

  f = good;
  f.mutable_architecture()->clear_input_planes();
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)),
                       "architecture.input_planes: missing"));

  // Different filters: every tensor's shape is wrong for the file's tower.
  f = good;
  f.mutable_architecture()->set_filters(32);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)), "has shape"));

  f = good;
  f.clear_game();
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)), "no game"));

  // A header that claims a moves-left head the tensors lack, and tensors
  // of a head the header does not claim.
  f = good;
  f.mutable_architecture()->set_moves_left_head_filters(2);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)),
                       "missing tensor 'moves_left.conv.weight'"));
  f = ParsedFile(TinyWeights("tavreli", 1, 4, /*moves_left=*/2));
  ASSERT_EQ(ParseError(WithChecksum(f)), "(accepted)");
  f.mutable_architecture()->clear_moves_left_head_filters();
  EXPECT_TRUE(
      Contains(ParseError(WithChecksum(f)), "unexpected tensor 'moves_left."));
  f.mutable_architecture()->set_moves_left_head_filters(-1);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)),
                       "architecture.moves_left_head_filters: must be in "
                       "[0, 1024], got -1"));
  f.mutable_architecture()->set_moves_left_head_filters(2);
  f.mutable_architecture()->set_moves_left_hidden(0);
  EXPECT_TRUE(Contains(ParseError(WithChecksum(f)),
                       "architecture.moves_left_hidden: must be in [1, 8192]"));

  // Incomplete weights cannot be written.
  NetworkWeights incomplete = w;
  incomplete.tensors.pop_back();
  const absl::Status s =
      WriteNetworkWeights(incomplete, TempPath("incomplete.net"));
  EXPECT_TRUE(Contains(std::string(s.message()), "missing tensor"));
  EXPECT_FALSE(std::filesystem::exists(TempPath("incomplete.net")));
}

TEST(WeightsFileTest, WrongGameAndWrongInputVersionDoNotFit) {
  NetworkWeights w = TinyWeights("tavreli");
  std::unique_ptr<Encoder> tavreli = EncoderFor("tavreli");
  std::unique_ptr<Encoder> tavlei = EncoderFor("tavlei9");
  EXPECT_TRUE(CheckNetworkFits(w, "tavreli", *tavreli).ok());
  EXPECT_EQ(CheckNetworkFits(w, "tavlei9", *tavlei).message(),
            "net is for game tavreli, not tavlei9");

  w.header.set_input_format_version(tavreli->FormatVersion() + 1);
  const std::string path = TempPath("version.net");
  ASSERT_TRUE(WriteNetworkWeights(w, path).ok());
  absl::StatusOr<NetworkWeights> loaded = ReadNetworkWeights(path);
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(Contains(
      std::string(CheckNetworkFits(*loaded, "tavreli", *tavreli).message()),
      "input format version"));
  std::filesystem::remove(path);

  // A net for tavlei9 relabelled as tavlei11 fails on the geometry.
  NetworkWeights small = TinyWeights("tavlei9");
  small.header.set_game("tavlei11");
  EXPECT_TRUE(Contains(
      std::string(CheckNetworkFits(small, "tavlei11", *EncoderFor("tavlei11"))
                      .message()),
      "planes of 9x9"));
}

TEST(WeightsFileTest, CudaWithoutCudaIsAnError) {
  if (TorchCudaAvailable()) GTEST_SKIP() << "CUDA is available here";
  TorchBackendOptions options;
  options.device = "cuda";
  absl::StatusOr<std::unique_ptr<Backend>> b =
      MakeTorchBackend(TinyWeights("tavreli"), options);
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(Contains(std::string(b.status().message()), "CUDA"));
  options.device = "tpu";
  EXPECT_TRUE(Contains(
      std::string(
          MakeTorchBackend(TinyWeights("tavreli"), options).status().message()),
      "unknown device"));
}

// ---------------------------------------------------------------------------
// Configs.

TEST(NetworkConfigTest, ShippedConfigsParse) {
  for (const char* name : {"net-cpu", "net-gpu"}) {
    absl::StatusOr<proto::NetworkConfig> c =
        ReadNetworkConfig(std::string(VOLKHV_TEST_DATA_DIR) +
                          "/../../configs/" + name + ".textproto");
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_GT(c->architecture().blocks(), 0);
  }
}

TEST(NetworkConfigTest, BadConfigsNameTheKey) {
  const auto error = [](const std::string& text) {
    absl::StatusOr<proto::NetworkConfig> c = ParseNetworkConfig(text, "c");
    return c.ok() ? std::string("(accepted)")
                  : std::string(c.status().message());
  };
  EXPECT_EQ(error("architecture { blocks: 3 filters: 32 }\nseed: 5"),
            "(accepted)");
  EXPECT_TRUE(Contains(error("architecture { blockz: 3 }"), "blockz"));
  EXPECT_TRUE(Contains(error("architecture {\n  blocks: \"many\"\n}"),
                       "blocks: \"many\""));
  EXPECT_TRUE(Contains(error("architecture { filters: 0 }"),
                       "architecture.filters: must be in [1, 1024], got 0"));
  EXPECT_TRUE(Contains(error("architecture { se_ratio: 100 filters: 64 }"),
                       "architecture.se_ratio"));
  EXPECT_TRUE(Contains(error("architecture { input_planes: 3 }"),
                       "architecture.input_planes"));
  EXPECT_TRUE(Contains(error("stack_layers: 0"), "stack_layers"));
  EXPECT_EQ(error("architecture { moves_left_head_filters: 8 }"), "(accepted)");
  EXPECT_TRUE(Contains(error("architecture { moves_left_head_filters: 2000 }"),
                       "architecture.moves_left_head_filters"));
  EXPECT_TRUE(Contains(
      error("architecture { moves_left_head_filters: 8 moves_left_hidden: 0 }"),
      "architecture.moves_left_hidden"));
  EXPECT_TRUE(Contains(error("seed: -1"), "seed"));
}

}  // namespace
}  // namespace volkhv::nn
