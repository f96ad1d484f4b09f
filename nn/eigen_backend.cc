#include "nn/eigen_backend.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "engine/util/strings.h"
#include "engine/util/thread_pool.h"
#include "nn/eigen_kernels.h"

namespace volkhv::nn {

namespace eigen_kernels {
// Builds without a kernel file (not x86-64, or a compiler without the
// flags) have none of that kind.
#ifndef VOLKHV_EIGEN_HAVE_AVX2
const KernelTable* Avx2Kernels() { return nullptr; }
#endif
#ifndef VOLKHV_EIGEN_HAVE_AVX512
const KernelTable* Avx512Kernels() { return nullptr; }
#endif
}  // namespace eigen_kernels

namespace {

using eigen_kernels::GemmCall;
using eigen_kernels::KernelTable;
using eigen_kernels::WinogradInput;
using eigen_kernels::WinogradOutput;

constexpr int kDefaultChunk = 4;
// Channel strides, weight rows and kernel columns are rounded up to this
// many floats (one cache line; a whole number of vectors).
constexpr int kRound = 16;
static_assert(eigen_kernels::kColumnPadding <= kRound);

int64_t RoundUp(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

// ---------------------------------------------------------------------------
// The CPU.

bool CpuHasAvx2() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool CpuHasAvx512() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return CpuHasAvx2() && __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

// nullptr for "eigen" (the portable products).
const KernelTable* KernelsFor(const std::string& kernel) {
  if (kernel == "avx512" && CpuHasAvx512()) {
    return eigen_kernels::Avx512Kernels();
  }
  if (kernel == "avx2" && CpuHasAvx2()) return eigen_kernels::Avx2Kernels();
  return nullptr;
}

// ---------------------------------------------------------------------------
// Weights laid out for GemmCall.

// A convolution or linear layer: B is [taps * in][ld], row (t * in + i),
// column o (zero for o >= out); bias is [ld]. A 3x3 convolution run as
// Winograd has instead (b empty) its weights U = G g G^T: [36][in][ld],
// element e = 6 * row + column of U.
struct Layer {
  int in = 0;
  int out = 0;
  int taps = 1;
  int64_t ld = 0;
  std::vector<float> b;
  std::vector<float> bias;
  std::vector<float> winograd;
};

constexpr int kWinogradTile = 4;       // outputs per tile side
constexpr int kWinogradElements = 36;  // (4 + 2)^2

// U = G g G^T of F(4x4, 3x3), in double.
void WinogradWeights(Layer* layer) {
  const int in = layer->in, out = layer->out;
  const int64_t ld = layer->ld;
  layer->winograd.assign(kWinogradElements * in * ld + kRound, 0.0f);
  static constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
  for (int i = 0; i < in; ++i) {
    for (int o = 0; o < out; ++o) {
      double g[3][3];
      for (int t = 0; t < 9; ++t) {
        g[t / 3][t % 3] = layer->b[(t * in + i) * ld + o];
      }
      for (int r = 0; r < 6; ++r) {
        for (int c = 0; c < 6; ++c) {
          double u = 0;
          for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) u += kG[r][a] * g[a][b] * kG[c][b];
          }
          layer->winograd[((r * 6 + c) * in + i) * ld + o] =
              static_cast<float>(u);
        }
      }
    }
  }
}

// Tensors of weights that passed CheckTensors.
class Source {
 public:
  Source(const NetworkWeights& weights, bool winograd)
      : weights_(weights), winograd_(winograd) {}
  const std::vector<float>& Get(const std::string& name) const {
    return weights_.Find(name)->values;
  }

  // conv [out, in, kh, kw] followed by BN, folded: w * s and beta - mean * s
  // with s = gamma / sqrt(var + eps) (in float, as LibTorch folds).
  Layer ConvBn(const std::string& conv, const std::string& bn, int in, int out,
               int kernel) const {
    Layer layer = FoldedConv(conv, bn, in, out, kernel);
    if (kernel == 3 && winograd_) {
      WinogradWeights(&layer);
      std::vector<float>().swap(layer.b);
    }
    return layer;
  }

  Layer FoldedConv(const std::string& conv, const std::string& bn, int in,
                   int out, int kernel) const {
    const std::vector<float>& w = Get(conv + ".weight");
    const std::vector<float>& gamma = Get(bn + ".weight");
    const std::vector<float>& beta = Get(bn + ".bias");
    const std::vector<float>& mean = Get(bn + ".running_mean");
    const std::vector<float>& var = Get(bn + ".running_var");
    Layer layer = Empty(in, out, kernel * kernel);
    for (int o = 0; o < out; ++o) {
      const float s = gamma[o] / std::sqrt(var[o] + kBatchNormEpsilon);
      layer.bias[o] = beta[o] - mean[o] * s;
      for (int i = 0; i < in; ++i) {
        for (int t = 0; t < layer.taps; ++t) {
          layer.b[(t * in + i) * layer.ld + o] =
              w[(static_cast<int64_t>(o) * in + i) * layer.taps + t] * s;
        }
      }
    }
    return layer;
  }

  static Layer Empty(int in, int out, int taps) {
    Layer layer;
    layer.in = in;
    layer.out = out;
    layer.taps = taps;
    layer.ld = RoundUp(out, kRound);
    layer.b.assign(static_cast<size_t>(taps) * in * layer.ld + kRound, 0.0f);
    layer.bias.assign(layer.ld + kRound, 0.0f);
    return layer;
  }

 private:
  const NetworkWeights& weights_;
  const bool winograd_;
};

struct SeWeights {
  std::vector<float> w1, b1, w2, b2;  // [S, F], [S], [2F, S], [2F]
};

struct Block {
  Layer conv1, conv2;
  bool se = false;
  SeWeights se_weights;
};

// The network's sizes. The padded board has a border of one square, and
// more at the bottom and right when the board is not a multiple of 4, so
// that 4x4 Winograd tiles cover it.
struct Geometry {
  int planes, filters, height, width, board;  // board = H * W
  int tiles_y, tiles_x, tiles;                // Winograd tiles per position
  int padded_width, padded_board;
  int se;  // SE channels (0 = none)
  int policy_filters, policy_channels;
  int value_filters, value_hidden;
  int moves_left_filters, moves_left_hidden;  // 0, 0: no moves-left head
  // Channel strides of the activation buffers.
  int64_t input_stride, filters_stride, policy_stride, value_stride;
  int64_t moves_left_stride;
  int64_t board_stride;  // the transposed policy input's row: board, rounded

  explicit Geometry(const proto::Architecture& a)
      : planes(a.input_planes()),
        filters(a.filters()),
        height(a.board_height()),
        width(a.board_width()),
        board(a.board_height() * a.board_width()),
        tiles_y((a.board_height() + kWinogradTile - 1) / kWinogradTile),
        tiles_x((a.board_width() + kWinogradTile - 1) / kWinogradTile),
        tiles(tiles_y * tiles_x),
        padded_width(kWinogradTile * tiles_x + 2),
        padded_board((kWinogradTile * tiles_y + 2) *
                     (kWinogradTile * tiles_x + 2)),
        se(SeChannels(a)),
        policy_filters(PolicyHeadFilters(a)),
        policy_channels(a.policy_channels()),
        value_filters(a.value_head_filters()),
        value_hidden(a.value_hidden()),
        moves_left_filters(a.moves_left_head_filters()),
        moves_left_hidden(HasMovesLeftHead(a) ? a.moves_left_hidden() : 0),
        input_stride(RoundUp(a.input_planes(), kRound)),
        filters_stride(RoundUp(a.filters(), kRound)),
        policy_stride(RoundUp(PolicyHeadFilters(a), kRound)),
        value_stride(RoundUp(a.value_head_filters(), kRound)),
        moves_left_stride(RoundUp(a.moves_left_head_filters(), kRound)),
        board_stride(RoundUp(board, kRound)) {}

  // The padded index of board square s (rank-major).
  int64_t Padded(int s) const {
    return (s / width + 1) * padded_width + s % width + 1;
  }
};

// ---------------------------------------------------------------------------
// Per-thread buffers: activations of `chunk` positions, channels-last with
// a zero border ([position][padded square][channel]); only the interior
// is ever written, so the border stays zero.
struct Workspace {
  std::vector<float> input, act, tmp, y, policy, policy_t, value, hidden;
  std::vector<float> moves_left, moves_left_hidden;  // with the head only
  std::vector<float> se;                             // g [F], h [S], z [2F]
  // Winograd: transformed input tiles and their products.
  std::vector<float> wv, wm;
  // The portable products: gathered rows and their product.
  std::vector<float> rows, product;
};

constexpr int kPortableRows = 64;    // rows per Eigen product
constexpr int kPortableDepth = 256;  // depth per Eigen product
constexpr int kPortableCols = 128;   // columns per Eigen product

using RowMatrix =
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap =
    Eigen::Map<const RowMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;
using MatrixMap = Eigen::Map<RowMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;

// GemmCall with Eigen: the rows of A (all taps) are gathered (im2col), up to
// kPortableRows at a time across groups when B is shared, and multiplied
// in blocks small enough that Eigen's packing buffers live on the stack
// (no heap allocation: at most 128 KiB each).
void PortableGemm(const GemmCall& call, Workspace& ws) {
  if (call.rows <= 0 || call.cols <= 0) return;
  const int64_t depth = static_cast<int64_t>(call.num_taps) * call.k;
  const bool shared_b = call.b_outer == 0 && call.b_inner == 0;
  const int groups = call.outer * call.inner;
  const int64_t product_ld = RoundUp(call.cols, kRound);
  struct RowRef {
    int group;
    int m;
  };
  RowRef refs[kPortableRows];
  const auto group_ptr = [&call](int g, auto* base, int64_t outer,
                                 int64_t inner) {
    return base + (g / call.inner) * outer + (g % call.inner) * inner;
  };
  int g = 0, m = 0;
  while (g < groups) {
    int n = 0;
    const int first_group = g;
    while (n < kPortableRows && g < groups && (shared_b || g == first_group)) {
      refs[n++] = {g, m};
      if (++m == call.rows) {
        m = 0;
        ++g;
      }
    }
    for (int r = 0; r < n; ++r) {
      const float* a =
          group_ptr(refs[r].group, call.a, call.a_outer, call.a_inner) +
          refs[r].m * call.lda;
      float* dst = ws.rows.data() + r * depth;
      for (int t = 0; t < call.num_taps; ++t) {
        std::copy_n(a + call.taps[t], call.k, dst + t * call.k);
      }
    }
    const ConstMatrixMap a(ws.rows.data(), n, depth,
                           Eigen::OuterStride<>(depth));
    const ConstMatrixMap b(
        group_ptr(first_group, call.b, call.b_outer, call.b_inner), depth,
        call.cols, Eigen::OuterStride<>(call.ldb));
    MatrixMap product(ws.product.data(), n, call.cols,
                      Eigen::OuterStride<>(product_ld));
    product.setZero();
    for (int64_t k0 = 0; k0 < depth; k0 += kPortableDepth) {
      const int64_t kc = std::min<int64_t>(kPortableDepth, depth - k0);
      for (int n0 = 0; n0 < call.cols; n0 += kPortableCols) {
        const int nc = std::min(kPortableCols, call.cols - n0);
        product.middleCols(n0, nc).noalias() +=
            a.middleCols(k0, kc) * b.block(k0, n0, kc, nc);
      }
    }
    for (int r = 0; r < n; ++r) {
      const int rg = refs[r].group, rm = refs[r].m;
      float* c =
          group_ptr(rg, call.c, call.c_outer, call.c_inner) + rm * call.ldc;
      const float* res =
          call.residual == nullptr
              ? nullptr
              : group_ptr(rg, call.residual, call.r_outer, call.r_inner) +
                    rm * call.ldr;
      const float* p = ws.product.data() + r * product_ld;
      const float row_bias =
          call.bias_rows != nullptr ? call.bias_rows[rm] : 0.0f;
      for (int col = 0; col < call.cols; ++col) {
        float v = p[col] +
                  (call.bias_cols != nullptr ? call.bias_cols[col] : row_bias);
        if (res != nullptr) v += res[col];
        c[col] = call.relu ? std::max(v, 0.0f) : v;
      }
    }
  }
}

// The Winograd transforms of nn/eigen_kernels.h, one channel at a time (the
// compiler vectorises the channel loops). Formulas as in
// nn/eigen_kernels.inc.
void InputRows(const float d[6], float t[6]) {
  t[0] = 4 * d[0] + d[4] - 5 * d[2];
  t[1] = d[3] + d[4] - 4 * (d[1] + d[2]);
  t[2] = 4 * (d[1] - d[2]) + (d[4] - d[3]);
  t[3] = 2 * (d[3] - d[1]) + (d[4] - d[2]);
  t[4] = 2 * (d[1] - d[3]) + (d[4] - d[2]);
  t[5] = 4 * d[1] + d[5] - 5 * d[3];
}

void OutputRows(const float m[6], float y[4]) {
  const float a = m[1] + m[2], b = m[1] - m[2];
  const float c = m[3] + m[4], d = m[3] - m[4];
  y[0] = a + c + m[0];
  y[1] = 2 * d + b;
  y[2] = 4 * c + a;
  y[3] = 8 * d + b + m[5];
}

void PortableWinogradInput(const WinogradInput& w) {
  const int64_t tiles = static_cast<int64_t>(w.tiles_y) * w.tiles_x;
  const int64_t plane = w.plane;
  const int64_t row = w.padded_width * w.stride;
  const int channels = static_cast<int>(RoundUp(w.channels, kRound));
  for (int p = 0; p < w.positions; ++p) {
    for (int ty = 0; ty < w.tiles_y; ++ty) {
      for (int tx = 0; tx < w.tiles_x; ++tx) {
        const float* in = w.in + p * w.position_stride +
                          (4 * ty * w.padded_width + 4 * tx) * w.stride;
        float* v = w.v + (p * tiles + ty * w.tiles_x + tx) * w.ldv;
        for (int c = 0; c < channels; ++c) {
          float t[6][6];
          for (int j = 0; j < 6; ++j) {
            float d[6], col[6];
            for (int i = 0; i < 6; ++i) d[i] = in[i * row + j * w.stride + c];
            InputRows(d, col);
            for (int i = 0; i < 6; ++i) t[i][j] = col[i];
          }
          for (int i = 0; i < 6; ++i) {
            float out[6];
            InputRows(t[i], out);
            for (int j = 0; j < 6; ++j) v[(6 * i + j) * plane + c] = out[j];
          }
        }
      }
    }
  }
}

void PortableWinogradOutput(const WinogradOutput& w) {
  const int64_t tiles = static_cast<int64_t>(w.tiles_y) * w.tiles_x;
  const int64_t plane = w.plane;
  const int channels = static_cast<int>(RoundUp(w.channels, kRound));
  for (int p = 0; p < w.positions; ++p) {
    for (int ty = 0; ty < w.tiles_y; ++ty) {
      for (int tx = 0; tx < w.tiles_x; ++tx) {
        const float* m = w.m + (p * tiles + ty * w.tiles_x + tx) * w.ldm;
        const int64_t at =
            p * w.position_stride +
            ((4 * ty + 1) * w.padded_width + 4 * tx + 1) * w.stride;
        const int rows = std::min(4, w.height - 4 * ty);
        const int cols = std::min(4, w.width - 4 * tx);
        for (int c = 0; c < channels; ++c) {
          float s[4][6];
          for (int j = 0; j < 6; ++j) {
            float col[6], y[4];
            for (int i = 0; i < 6; ++i) col[i] = m[(6 * i + j) * plane + c];
            OutputRows(col, y);
            for (int i = 0; i < 4; ++i) s[i][j] = y[i];
          }
          for (int i = 0; i < rows; ++i) {
            float y[4];
            OutputRows(s[i], y);
            for (int j = 0; j < cols; ++j) {
              const int64_t off = at + (i * w.padded_width + j) * w.stride + c;
              float v = y[j] + w.bias[c];
              if (w.residual != nullptr) v += w.residual[off];
              w.out[off] = w.relu ? std::max(v, 0.0f) : v;
            }
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------

class EigenBackend final : public Backend {
 public:
  EigenBackend(const NetworkWeights& weights,
               const EigenBackendOptions& options, const std::string& kernel,
               int threads)
      : g_(weights.architecture()),
        kernels_(KernelsFor(kernel)),
        winograd_(options.winograd),
        chunk_(options.chunk > 0 ? options.chunk : kDefaultChunk) {
    info_.name = "eigen";
    info_.input = {g_.planes, g_.height, g_.width};
    info_.policy_size = g_.policy_channels * g_.board;
    info_.moves_left = g_.moves_left_filters > 0;
    info_.max_batch = options.max_batch;
    info_.preferred_batch = options.preferred_batch > 0
                                ? options.preferred_batch
                                : std::min(options.max_batch, threads);
    Load(weights);
    MakeTaps();
    workspaces_.resize(threads);
    for (Workspace& ws : workspaces_) Allocate(ws);
    pool_ = std::make_unique<ThreadPool>(threads);
  }

  const BackendInfo& Info() const override { return info_; }

  void Compute(int batch, const float* input, float* policy_logits, float* wdl,
               float* moves_left) override {
    if (batch <= 0) return;
    Job job{this,          batch, std::min(batch, pool_->size()),         input,
            policy_logits, wdl,   info_.moves_left ? moves_left : nullptr};
    pool_->Run(job.tasks, &RunShare, &job);
  }

 private:
  struct Job {
    EigenBackend* backend;
    int batch;
    int tasks;
    const float* input;
    float* policy;
    float* wdl;
    float* moves_left;  // null: not asked for, or no head
  };

  // Share i of the job: positions [begin, end), in chunks.
  static void RunShare(void* context, int i) {
    const Job& job = *static_cast<const Job*>(context);
    EigenBackend& self = *job.backend;
    const int64_t begin = static_cast<int64_t>(job.batch) * i / job.tasks;
    const int64_t end = static_cast<int64_t>(job.batch) * (i + 1) / job.tasks;
    for (int64_t p = begin; p < end; p += self.chunk_) {
      const int n = static_cast<int>(std::min<int64_t>(self.chunk_, end - p));
      self.Forward(n, job.input + p * self.g_.planes * self.g_.board,
                   job.policy + p * self.info_.policy_size, job.wdl + 3 * p,
                   job.moves_left == nullptr ? nullptr : job.moves_left + p,
                   self.workspaces_[i]);
    }
  }

  void Load(const NetworkWeights& weights) {
    const Source source(weights, winograd_);
    const int f = g_.filters;
    input_ = source.ConvBn("input.conv", "input.bn", g_.planes, f, 3);
    for (int i = 0; i < weights.architecture().blocks(); ++i) {
      const std::string b = Cat("blocks.", i, ".");
      Block block;
      block.conv1 = source.ConvBn(b + "conv1", b + "bn1", f, f, 3);
      block.conv2 = source.ConvBn(b + "conv2", b + "bn2", f, f, 3);
      block.se = g_.se > 0;
      if (block.se) {
        block.se_weights = {
            source.Get(b + "se.fc1.weight"), source.Get(b + "se.fc1.bias"),
            source.Get(b + "se.fc2.weight"), source.Get(b + "se.fc2.bias")};
      }
      blocks_.push_back(std::move(block));
    }
    policy_conv_ =
        source.ConvBn("policy.conv1", "policy.bn", f, g_.policy_filters, 3);
    // The 1x1 policy layer runs transposed (planes x squares): its weight
    // [C, Ph] is the A operand as stored.
    policy_w_ = source.Get("policy.conv2.weight");
    policy_b_ = source.Get("policy.conv2.bias");
    value_conv_ =
        source.ConvBn("value.conv", "value.bn", f, g_.value_filters, 1);
    // value.fc1 reads the value planes flattened plane-major (v * HW + s);
    // here one tap per square s reads that square's Vf channels, so its B
    // row is t * Vf + v = s * Vf + v.
    value_fc1_ =
        PlanesLinear(source, "value.fc1", g_.value_filters, g_.value_hidden);
    value_w2_ = source.Get("value.fc2.weight");
    value_b2_ = source.Get("value.fc2.bias");
    if (g_.moves_left_filters > 0) {
      moves_left_conv_ = source.ConvBn("moves_left.conv", "moves_left.bn", f,
                                       g_.moves_left_filters, 1);
      moves_left_fc1_ =
          PlanesLinear(source, "moves_left.fc1", g_.moves_left_filters,
                       g_.moves_left_hidden);
      moves_left_w2_ = source.Get("moves_left.fc2.weight");
      moves_left_b2_ = source.Get("moves_left.fc2.bias");
    }
  }

  // A linear layer `name` reading `filters` planes of the board flattened
  // plane-major (v * HW + s), as one tap per square s reading that square's
  // channels: its B row is t * filters + v = s * filters + v.
  Layer PlanesLinear(const Source& source, const std::string& name, int filters,
                     int hidden) const {
    const std::vector<float>& w1 = source.Get(name + ".weight");
    Layer layer = Source::Empty(filters, hidden, g_.board);
    for (int j = 0; j < hidden; ++j) {
      for (int v = 0; v < filters; ++v) {
        for (int s = 0; s < g_.board; ++s) {
          layer.b[(static_cast<int64_t>(s) * filters + v) * layer.ld + j] =
              w1[(static_cast<int64_t>(j) * filters + v) * g_.board + s];
        }
      }
    }
    const std::vector<float>& b1 = source.Get(name + ".bias");
    std::copy(b1.begin(), b1.end(), layer.bias.begin());
    return layer;
  }

  void MakeTaps() {
    const auto taps3 = [this](int64_t stride) {
      std::vector<int64_t> taps;
      for (int dy = 0; dy < 3; ++dy) {
        for (int dx = 0; dx < 3; ++dx) {
          taps.push_back((dy * g_.padded_width + dx) * stride);
        }
      }
      return taps;
    };
    input_taps_ = taps3(g_.input_stride);
    filters_taps_ = taps3(g_.filters_stride);
    for (int s = 0; s < g_.board; ++s) {
      value_taps_.push_back(g_.Padded(s) * g_.value_stride);
      moves_left_taps_.push_back(g_.Padded(s) * g_.moves_left_stride);
    }
  }

  void Allocate(Workspace& ws) const {
    const int64_t squares = static_cast<int64_t>(chunk_) * g_.padded_board;
    const auto zeros = [](int64_t n) {
      return std::vector<float>(static_cast<size_t>(n + kRound), 0.0f);
    };
    ws.input = zeros(squares * g_.input_stride);
    ws.act = zeros(squares * g_.filters_stride);
    ws.tmp = zeros(squares * g_.filters_stride);
    if (g_.se > 0) ws.y = zeros(squares * g_.filters_stride);
    ws.policy = zeros(squares * g_.policy_stride);
    ws.policy_t = zeros(static_cast<int64_t>(chunk_) * g_.policy_filters *
                        g_.board_stride);
    ws.value = zeros(squares * g_.value_stride);
    ws.hidden = zeros(static_cast<int64_t>(chunk_) * value_fc1_.ld);
    if (g_.moves_left_filters > 0) {
      ws.moves_left = zeros(squares * g_.moves_left_stride);
      ws.moves_left_hidden =
          zeros(static_cast<int64_t>(chunk_) * moves_left_fc1_.ld);
    }
    ws.se = zeros(3 * g_.filters + g_.se);
    if (winograd_) {
      const int64_t tiles = static_cast<int64_t>(chunk_) * g_.tiles;
      ws.wv = zeros(
          kWinogradElements *
          (tiles * std::max(g_.input_stride, g_.filters_stride) + kRound));
      ws.wm = zeros(
          kWinogradElements *
          (tiles * std::max(g_.filters_stride, g_.policy_stride) + kRound));
    }
    if (kernels_ == nullptr) {
      const int64_t depth = std::max<int64_t>(
          {int64_t{9} * g_.planes, int64_t{9} * g_.filters,
           int64_t{g_.policy_filters}, int64_t{g_.board} * g_.value_filters,
           int64_t{g_.board} * g_.moves_left_filters});
      // (Winograd products have depth <= max(planes, filters).)
      const int64_t cols =
          std::max<int64_t>({g_.filters_stride, g_.policy_stride,
                             g_.value_stride, g_.board_stride, value_fc1_.ld,
                             g_.moves_left_stride, moves_left_fc1_.ld});
      ws.rows = zeros(kPortableRows * depth);
      ws.product = zeros(kPortableRows * cols);
    }
  }

  void Gemm(const GemmCall& call, Workspace& ws) const {
    if (kernels_ != nullptr) {
      kernels_->gemm(call);
    } else {
      PortableGemm(call, ws);
    }
  }

  // A "same" convolution (3x3 or 1x1) of n positions between activation
  // buffers with channel strides in_stride and out_stride.
  void Conv(const Layer& layer, const std::vector<int64_t>& taps3, int n,
            const float* in, int64_t in_stride, float* out, int64_t out_stride,
            const float* residual, bool relu, Workspace& ws) const {
    if (!layer.winograd.empty()) {
      WinogradConv(layer, n, in, in_stride, out, out_stride, residual, relu,
                   ws);
      return;
    }
    static constexpr int64_t kCenter[1] = {0};
    const int64_t interior = g_.padded_width + 1;
    GemmCall c;
    c.rows = g_.width;
    c.cols = layer.out;
    c.k = layer.in;
    if (layer.taps == 9) {
      c.num_taps = 9;
      c.taps = taps3.data();
      c.a = in;
    } else {
      c.num_taps = 1;
      c.taps = kCenter;
      c.a = in + interior * in_stride;
    }
    c.lda = in_stride;
    c.b = layer.b.data();
    c.ldb = layer.ld;
    c.bias_cols = layer.bias.data();
    c.c = out + interior * out_stride;
    c.ldc = out_stride;
    if (residual != nullptr) {
      c.residual = residual + interior * out_stride;
      c.ldr = out_stride;
    }
    c.relu = relu;
    c.outer = n;
    c.inner = g_.height;
    c.a_outer = g_.padded_board * in_stride;
    c.a_inner = g_.padded_width * in_stride;
    c.c_outer = c.r_outer = g_.padded_board * out_stride;
    c.c_inner = c.r_inner = g_.padded_width * out_stride;
    Gemm(c, ws);
  }

  void WinogradConv(const Layer& layer, int n, const float* in,
                    int64_t in_stride, float* out, int64_t out_stride,
                    const float* residual, bool relu, Workspace& ws) const {
    const int64_t total = static_cast<int64_t>(n) * g_.tiles;
    const int64_t ldv = RoundUp(layer.in, kRound);
    // Planes of V and M one cache line longer than their rows: a multiple
    // of 4 KiB (common: 16 tiles x 64 channels) would put the elements of a
    // tile in the same cache set (measured with F(2x2, 3x3): the input
    // transform took 14% of the time at batch 1, 3% with the skew).
    const int64_t plane_v = total * ldv + kRound;
    const int64_t plane_m = total * layer.ld + kRound;
    WinogradInput wi;
    wi.positions = n;
    wi.tiles_y = g_.tiles_y;
    wi.tiles_x = g_.tiles_x;
    wi.channels = layer.in;
    wi.in = in;
    wi.stride = in_stride;
    wi.padded_width = g_.padded_width;
    wi.position_stride = g_.padded_board * in_stride;
    wi.v = ws.wv.data();
    wi.ldv = ldv;
    wi.plane = plane_v;
    if (kernels_ != nullptr) {
      kernels_->winograd_input(wi);
    } else {
      PortableWinogradInput(wi);
    }
    static constexpr int64_t kNoTap[1] = {0};
    GemmCall c;
    c.rows = static_cast<int>(total);
    c.cols = layer.out;
    c.k = layer.in;
    c.taps = kNoTap;
    c.a = ws.wv.data();
    c.lda = ldv;
    c.b = layer.winograd.data();
    c.ldb = layer.ld;
    c.c = ws.wm.data();
    c.ldc = layer.ld;
    c.outer = kWinogradElements;
    c.a_outer = plane_v;
    c.b_outer = layer.in * layer.ld;
    c.c_outer = plane_m;
    Gemm(c, ws);
    WinogradOutput wo;
    wo.positions = n;
    wo.tiles_y = g_.tiles_y;
    wo.tiles_x = g_.tiles_x;
    wo.height = g_.height;
    wo.width = g_.width;
    wo.channels = layer.out;
    wo.m = ws.wm.data();
    wo.ldm = layer.ld;
    wo.plane = plane_m;
    wo.bias = layer.bias.data();
    wo.residual = residual;
    wo.relu = relu;
    wo.out = out;
    wo.stride = out_stride;
    wo.padded_width = g_.padded_width;
    wo.position_stride = g_.padded_board * out_stride;
    if (kernels_ != nullptr) {
      kernels_->winograd_output(wo);
    } else {
      PortableWinogradOutput(wo);
    }
  }

  // y = sigmoid(gamma) * y + beta from the board means of y; then
  // act = ReLU(y + act), on the real channels of the interior.
  void SqueezeExcite(const SeWeights& w, int n, Workspace& ws) const {
    const int f = g_.filters, s = g_.se;
    const int64_t stride = g_.filters_stride;
    float* mean = ws.se.data();
    float* hidden = mean + f;
    float* z = hidden + s;
    for (int p = 0; p < n; ++p) {
      const float* y = ws.y.data() + p * g_.padded_board * stride;
      float* act = ws.act.data() + p * g_.padded_board * stride;
      std::fill_n(mean, f, 0.0f);
      for (int sq = 0; sq < g_.board; ++sq) {
        const float* row = y + g_.Padded(sq) * stride;
        for (int c = 0; c < f; ++c) mean[c] += row[c];
      }
      for (int c = 0; c < f; ++c) mean[c] /= static_cast<float>(g_.board);
      for (int j = 0; j < s; ++j) {
        float v = w.b1[j];
        const float* wj = w.w1.data() + static_cast<int64_t>(j) * f;
        for (int c = 0; c < f; ++c) v += wj[c] * mean[c];
        hidden[j] = std::max(v, 0.0f);
      }
      for (int i = 0; i < 2 * f; ++i) {
        float v = w.b2[i];
        const float* wi = w.w2.data() + static_cast<int64_t>(i) * s;
        for (int j = 0; j < s; ++j) v += wi[j] * hidden[j];
        z[i] = v;
      }
      for (int c = 0; c < f; ++c) z[c] = 1.0f / (1.0f + std::exp(-z[c]));
      const float* gamma = z;
      const float* beta = z + f;
      for (int sq = 0; sq < g_.board; ++sq) {
        const int64_t at = g_.Padded(sq) * stride;
        const float* yr = y + at;
        float* ar = act + at;
        for (int c = 0; c < f; ++c) {
          ar[c] = std::max(yr[c] * gamma[c] + beta[c] + ar[c], 0.0f);
        }
      }
    }
  }

  // `moves_left` may be null (not asked for, or no head).
  void Forward(int n, const float* input, float* policy_out, float* wdl,
               float* moves_left, Workspace& ws) const {
    const int planes = g_.planes, board = g_.board;
    // [plane][square] -> [padded square][plane].
    const int64_t is = g_.input_stride;
    for (int p = 0; p < n; ++p) {
      const float* src = input + static_cast<int64_t>(p) * planes * board;
      float* dst = ws.input.data() + p * g_.padded_board * is;
      for (int sq = 0; sq < board; ++sq) {
        float* d = dst + g_.Padded(sq) * is;
        for (int c = 0; c < planes; ++c) d[c] = src[c * board + sq];
      }
    }
    const int64_t fs = g_.filters_stride;
    Conv(input_, input_taps_, n, ws.input.data(), is, ws.act.data(), fs,
         nullptr, true, ws);
    for (const Block& block : blocks_) {
      Conv(block.conv1, filters_taps_, n, ws.act.data(), fs, ws.tmp.data(), fs,
           nullptr, true, ws);
      if (block.se) {
        Conv(block.conv2, filters_taps_, n, ws.tmp.data(), fs, ws.y.data(), fs,
             nullptr, false, ws);
        SqueezeExcite(block.se_weights, n, ws);
      } else {
        Conv(block.conv2, filters_taps_, n, ws.tmp.data(), fs, ws.act.data(),
             fs, ws.act.data(), true, ws);
      }
    }
    Policy(n, policy_out, ws);
    Value(n, wdl, ws);
    if (moves_left != nullptr) MovesLeft(n, moves_left, ws);
  }

  void Policy(int n, float* out, Workspace& ws) const {
    const int ph = g_.policy_filters, board = g_.board;
    const int64_t ps = g_.policy_stride;
    Conv(policy_conv_, filters_taps_, n, ws.act.data(), g_.filters_stride,
         ws.policy.data(), ps, nullptr, true, ws);
    // [padded square][filter] -> [filter][square].
    for (int p = 0; p < n; ++p) {
      const float* src = ws.policy.data() + p * g_.padded_board * ps;
      float* dst = ws.policy_t.data() + p * ph * g_.board_stride;
      for (int sq = 0; sq < board; ++sq) {
        const float* s = src + g_.Padded(sq) * ps;
        for (int c = 0; c < ph; ++c) dst[c * g_.board_stride + sq] = s[c];
      }
    }
    static constexpr int64_t kNoTap[1] = {0};
    GemmCall c;
    c.rows = g_.policy_channels;
    c.cols = board;
    c.k = ph;
    c.taps = kNoTap;
    c.a = policy_w_.data();
    c.lda = ph;
    c.b = ws.policy_t.data();
    c.ldb = g_.board_stride;
    c.b_outer = ph * g_.board_stride;
    c.bias_rows = policy_b_.data();
    c.c = out;
    c.ldc = board;
    c.c_outer = static_cast<int64_t>(g_.policy_channels) * board;
    c.outer = n;
    Gemm(c, ws);
  }

  // A head's 1x1 convolution (with ReLU) into `planes` (channel stride
  // `stride`) and its first linear layer (with ReLU) into `hidden` (row
  // stride fc1.ld), for n positions.
  void HeadHidden(const Layer& conv, const Layer& fc1,
                  const std::vector<int64_t>& taps, int64_t stride, int n,
                  float* planes, float* hidden, Workspace& ws) const {
    Conv(conv, filters_taps_, n, ws.act.data(), g_.filters_stride, planes,
         stride, nullptr, true, ws);
    GemmCall c;
    c.rows = n;
    c.cols = fc1.out;
    c.k = conv.out;
    c.num_taps = g_.board;
    c.taps = taps.data();
    c.a = planes;
    c.lda = g_.padded_board * stride;
    c.b = fc1.b.data();
    c.ldb = fc1.ld;
    c.bias_cols = fc1.bias.data();
    c.c = hidden;
    c.ldc = fc1.ld;
    c.relu = true;
    Gemm(c, ws);
  }

  // kMovesLeftScale * softplus(fc2(hidden)); softplus as LibTorch's
  // (linear above 20).
  void MovesLeft(int n, float* out, Workspace& ws) const {
    HeadHidden(moves_left_conv_, moves_left_fc1_, moves_left_taps_,
               g_.moves_left_stride, n, ws.moves_left.data(),
               ws.moves_left_hidden.data(), ws);
    const int hidden = g_.moves_left_hidden;
    for (int p = 0; p < n; ++p) {
      const float* h = ws.moves_left_hidden.data() + p * moves_left_fc1_.ld;
      float z = moves_left_b2_[0];
      for (int j = 0; j < hidden; ++j) z += moves_left_w2_[j] * h[j];
      const float softplus = z > 20.0f ? z : std::log1p(std::exp(z));
      out[p] = kMovesLeftScale * softplus;
    }
  }

  void Value(int n, float* wdl, Workspace& ws) const {
    HeadHidden(value_conv_, value_fc1_, value_taps_, g_.value_stride, n,
               ws.value.data(), ws.hidden.data(), ws);
    const int hidden = g_.value_hidden;
    for (int p = 0; p < n; ++p) {
      const float* h = ws.hidden.data() + p * value_fc1_.ld;
      float logits[3];
      for (int k = 0; k < 3; ++k) {
        float v = value_b2_[k];
        const float* w = value_w2_.data() + k * hidden;
        for (int j = 0; j < hidden; ++j) v += w[j] * h[j];
        logits[k] = v;
      }
      const float top = std::max({logits[0], logits[1], logits[2]});
      float e[3], total = 0;
      for (int k = 0; k < 3; ++k) total += e[k] = std::exp(logits[k] - top);
      for (int k = 0; k < 3; ++k) wdl[3 * p + k] = e[k] / total;
    }
  }

  const Geometry g_;
  const KernelTable* const kernels_;
  const bool winograd_;
  const int chunk_;
  BackendInfo info_;
  Layer input_;
  std::vector<Block> blocks_;
  Layer policy_conv_, value_conv_, value_fc1_;
  std::vector<float> policy_w_, policy_b_, value_w2_, value_b2_;
  std::vector<int64_t> input_taps_, filters_taps_, value_taps_;
  // The moves-left head (empty without it).
  Layer moves_left_conv_, moves_left_fc1_;
  std::vector<float> moves_left_w2_, moves_left_b2_;
  std::vector<int64_t> moves_left_taps_;
  std::vector<Workspace> workspaces_;
  std::unique_ptr<ThreadPool> pool_;
};

absl::Status CheckTensors(const NetworkWeights& weights) {
  for (const TensorSpec& spec : NetworkTensorSpecs(weights.architecture())) {
    const TensorData* data = weights.Find(spec.name);
    if (data == nullptr) {
      return absl::InvalidArgumentError(Cat("missing tensor '", spec.name,
                                            "' (shape ",
                                            ShapeString(spec.shape), ")"));
    }
    if (data->shape != spec.shape) {
      return absl::InvalidArgumentError(
          Cat("tensor '", spec.name, "' has shape ", ShapeString(data->shape),
              ", the architecture needs ", ShapeString(spec.shape)));
    }
    if (static_cast<int64_t>(data->values.size()) != spec.NumElements()) {
      return absl::InvalidArgumentError(
          Cat("tensor '", spec.name, "' has ", data->values.size(),
              " values, its shape ", ShapeString(spec.shape), " needs ",
              spec.NumElements()));
    }
    for (size_t i = 0; i < data->values.size(); ++i) {
      if (!std::isfinite(data->values[i])) {
        return absl::InvalidArgumentError(
            Cat("tensor '", spec.name, "' value ", i, " is not finite"));
      }
    }
  }
  return absl::OkStatus();
}

int DefaultThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

}  // namespace

std::string EigenDefaultKernel() {
  if (EigenKernelAvailable("avx512")) return "avx512";
  if (EigenKernelAvailable("avx2")) return "avx2";
  return "eigen";
}

bool EigenKernelAvailable(const std::string& kernel) {
  if (kernel == "eigen") return true;
  return (kernel == "avx512" || kernel == "avx2") &&
         KernelsFor(kernel) != nullptr;
}

std::string EigenRuntimeSummary(const std::string& kernel) {
  const std::string resolved = kernel == "auto" ? EigenDefaultKernel() : kernel;
  return Cat(
      "Eigen ", EIGEN_WORLD_VERSION, ".", EIGEN_MAJOR_VERSION, ".",
      EIGEN_MINOR_VERSION, " (", Eigen::SimdInstructionSetsInUse(),
      "), kernel ", resolved, " (CPU: avx2+fma ", CpuHasAvx2() ? "yes" : "no",
      ", avx512f ", CpuHasAvx512() ? "yes" : "no", "; built: avx2 ",
      eigen_kernels::Avx2Kernels() != nullptr ? "yes" : "no", ", avx512 ",
      eigen_kernels::Avx512Kernels() != nullptr ? "yes" : "no", ")");
}

absl::StatusOr<std::unique_ptr<Backend>> MakeEigenBackend(
    const NetworkWeights& weights, const EigenBackendOptions& options) {
  if (absl::Status s = ValidateArchitecture(weights.architecture(),
                                            /*require_geometry=*/true);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckTensors(weights); !s.ok()) return s;
  if (options.threads < 0 || options.threads > 1024 || options.max_batch < 1 ||
      options.chunk < 0 || options.chunk > 1024 ||
      options.preferred_batch < 0) {
    return absl::InvalidArgumentError(
        "eigen backend: threads must be in [0, 1024], max_batch >= 1, chunk "
        "in [0, 1024], preferred_batch >= 0");
  }
  std::string kernel = options.kernel;
  if (kernel == "auto") kernel = EigenDefaultKernel();
  if (kernel != "avx512" && kernel != "avx2" && kernel != "eigen") {
    return absl::InvalidArgumentError(
        Cat("eigen backend: unknown kernel '", options.kernel,
            "' (known: auto, avx512, avx2, eigen)"));
  }
  if (!EigenKernelAvailable(kernel)) {
    return absl::FailedPreconditionError(
        Cat("eigen backend: kernel ", kernel,
            " does not run here: ", EigenRuntimeSummary(kernel)));
  }
  const int threads = options.threads > 0 ? options.threads : DefaultThreads();
  try {
    return std::unique_ptr<Backend>(
        std::make_unique<EigenBackend>(weights, options, kernel, threads));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        Cat("eigen backend: out of memory for the buffers of ",
            ArchitectureSummary(weights.architecture())));
  }
}

}  // namespace volkhv::nn
