// The kernels of the Eigen backend (nn/eigen_backend.h): one matrix-product
// shape ("tapped GEMM") that covers the direct 3x3 and the 1x1 convolutions
// on padded channels-last activations, the products of Winograd
// convolutions, the transposed policy product and the fully connected
// layers; and the Winograd F(4x4, 3x3) transforms.
//
// Implementations: the portable one (nn/eigen_backend.cc, Eigen matrix
// products on gathered rows, built for the baseline ISA of the toolchain)
// and, on x86-64, direct kernels built with AVX2+FMA and with AVX-512F
// (nn/eigen_kernels_avx2.cc, nn/eigen_kernels_avx512.cc), chosen at run time
// by the CPU's features. The build flags stay those of any x86-64 machine:
// only those two files get -mavx2/-mavx512f, and they include no standard
// library header and define nothing outside their own namespaces, so that
// no inline function compiled with those instructions can be picked by the
// linker for code that runs on a CPU without them.
//
// This header includes nothing but <cstdint> for the same reason.
//
// Thread-safety: the kernels are pure functions of their arguments.
#ifndef VOLKHV_NN_EIGEN_KERNELS_H_
#define VOLKHV_NN_EIGEN_KERNELS_H_

#include <cstdint>

namespace volkhv::nn::eigen_kernels {

// B rows and bias_cols are read up to cols rounded up to this (kernels load
// whole vectors).
inline constexpr int kColumnPadding = 16;

// For every group g = (o, i), o < outer, i < inner, with
//   a_g = a + o * a_outer + i * a_inner (and likewise b_g, c_g, residual_g):
//   C_g[m][n] = init[m][n]
//             + sum_{t < num_taps} sum_{q < k} a_g[m * lda + taps[t] + q]
//                                              * b_g[(t * k + q) * ldb + n]
// for m < rows and n < cols, where init is bias_cols[n] when bias_cols is
// set, else bias_rows[m] when that is set, else 0; then residual_g[m * ldr +
// n] is added when residual is set, then ReLU when relu. C_g[m][n] is
// c_g[m * ldc + n]; only columns < cols are written. residual may equal c
// (read before written, element by element).
//
// Memory: b rows and bias_cols are read in whole vectors, so they must be
// readable up to column round_up(cols, kColumnPadding); a, residual and c
// are accessed exactly as addressed.
struct GemmCall {
  int rows = 0;
  int cols = 0;
  int k = 0;
  int num_taps = 1;
  const int64_t* taps = nullptr;  // num_taps offsets into a (floats)
  const float* a = nullptr;
  int64_t lda = 0;
  const float* b = nullptr;
  int64_t ldb = 0;
  const float* bias_cols = nullptr;
  const float* bias_rows = nullptr;
  const float* residual = nullptr;
  int64_t ldr = 0;
  float* c = nullptr;
  int64_t ldc = 0;
  bool relu = false;
  int outer = 1;
  int inner = 1;
  int64_t a_outer = 0, a_inner = 0;
  int64_t b_outer = 0, b_inner = 0;
  int64_t c_outer = 0, c_inner = 0;
  int64_t r_outer = 0, r_inner = 0;
};

// Winograd F(4x4, 3x3) (Lavin and Gray 2015, points 0, 1, -1, 2, -2): a 3x3
// "same" convolution as 36 matrix products of transformed 6x6 input tiles
// with transformed weights, 4x fewer multiplications than the direct sum
// (rounding errors about 1e-5 relative instead of 1e-6). Activations are
// channels-last with a zero border: square (y, x) of position p is at
// base + p * position_stride + ((y + 1) * padded_width + x + 1) * stride.
// The board is covered by tiles_y x tiles_x tiles of 4x4 outputs; tile
// (ty, tx) reads padded rows 4ty .. 4ty + 5 and columns 4tx .. 4tx + 5, so
// the padded board must be 4 * tiles + 2 squares wide and high (zero
// beyond the board). Tiles are numbered t = (p * tiles_y + ty) * tiles_x +
// tx of total = positions * tiles_y * tiles_x; element e = 6 * row + column
// (0..35) of tile t is at v + e * plane + t * ldv (and likewise in m),
// plane >= total * ldv.
//
// Channels are processed in whole vectors up to round_up(channels, 16): the
// activation and v/m strides must allow it (the extra channels are
// computed like the others, from whatever finite values are there).
struct WinogradInput {
  int positions = 0;
  int tiles_y = 0, tiles_x = 0;
  int channels = 0;
  const float* in = nullptr;
  int64_t stride = 0, padded_width = 0, position_stride = 0;
  float* v = nullptr;
  int64_t ldv = 0;
  int64_t plane = 0;
};

// Output: out(y, x) = A^T m A (+ bias, + residual, ReLU) for y < height,
// x < width; other squares are not written.
struct WinogradOutput {
  int positions = 0;
  int tiles_y = 0, tiles_x = 0;
  int height = 0, width = 0;
  int channels = 0;
  const float* m = nullptr;
  int64_t ldm = 0;
  int64_t plane = 0;
  const float* bias = nullptr;      // [round_up(channels, 16)]
  const float* residual = nullptr;  // same layout as out, or nullptr
  bool relu = false;
  float* out = nullptr;
  int64_t stride = 0, padded_width = 0, position_stride = 0;
};

// A direct kernel for one instruction set.
struct KernelTable {
  const char* name;  // "avx2", "avx512"
  int lanes;         // floats per vector register
  void (*gemm)(const GemmCall& call);
  void (*winograd_input)(const WinogradInput& call);
  void (*winograd_output)(const WinogradOutput& call);
};

// The kernels built into this binary (nullptr where the compiler could not
// build them). Whether the CPU runs them is the caller's business
// (nn/eigen_backend.cc checks the CPU's features).
const KernelTable* Avx2Kernels();
const KernelTable* Avx512Kernels();

}  // namespace volkhv::nn::eigen_kernels

#endif  // VOLKHV_NN_EIGEN_KERNELS_H_
