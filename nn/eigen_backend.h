// The Eigen CPU inference backend: computes the network of
// nn/weights_file.h from a NetworkWeights without LibTorch. Built for small
// batches (interactive play and analysis, searches with small leaf
// batches), where LibTorch is overhead-bound; measured faster than LibTorch
// at every batch size on AVX2 and AVX-512 CPUs (nn/evaluator_factory.cc).
//
// At load, batch norm is folded into the convolutions and every weight is
// laid out for the kernels. Activations are channels-last with a zero
// border around the board. The 3x3 convolutions run as Winograd F(4x4, 3x3)
// (36 matrix products over transformed 6x6 tiles, 4x fewer
// multiplications) or, optionally, as direct sums over nine shifted matrix
// products without copies ("taps"); the 1x1 convolutions and the value
// and moves-left heads' first layers are matrix products too, the policy head's
// last layer transposed so that it writes the logits in place
// (nn/eigen_kernels.h). The products run on
//   - "avx512" or "avx2": direct kernels for those instruction sets,
//     chosen at run time from the CPU's features (the build itself targets
//     any x86-64 CPU);
//   - "eigen": Eigen matrix products on gathered (im2col) rows, for any CPU
//     (vectorised with what the compiler targets: SSE2 on plain x86-64).
// Squeeze-excitation, the value and moves-left heads' last layers, the
// softmax and the softplus are plain loops.
//
// Threads: a batch is split into one contiguous share per thread; each
// thread runs the whole network on its share in chunks of `chunk`
// positions, with its own preallocated buffers (Compute allocates nothing).
// A batch smaller than the thread count uses fewer threads (a batch of one
// runs on one thread).
//
// Thread-safety: as nn/backend.h (Compute from one thread at a time; Info()
// is thread-safe).
#ifndef VOLKHV_NN_EIGEN_BACKEND_H_
#define VOLKHV_NN_EIGEN_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "nn/backend.h"
#include "nn/weights_file.h"

namespace volkhv::nn {

struct EigenBackendOptions {
  // Threads computing a batch; 0 = one per core.
  int threads = 0;
  // "auto" (the fastest this CPU runs: avx512, avx2, eigen), "avx512",
  // "avx2" or "eigen". Asking for one the CPU or the build lacks is an
  // error.
  std::string kernel = "auto";
  // 3x3 convolutions as Winograd F(4x4, 3x3) (4x fewer multiplications;
  // the same function up to rounding, about 1e-5 relative); off: direct
  // sums over the 9 taps.
  bool winograd = true;
  // Positions each thread runs through the network layer by layer (its
  // buffers hold this many); 0 = the default (4).
  int chunk = 0;
  int max_batch = 1024;
  // BackendInfo::preferred_batch; 0 = threads: throughput per position is
  // flat in the batch size once every thread has a position (measured with
  // `volkhv bench nn`), so a batch need not wait for more.
  int preferred_batch = 0;
};

// A backend computing `weights`. Checks again everything it relies on (the
// architecture and the presence, shape and finiteness of every tensor), so
// that damaged weights are an error naming the tensor, never a crash.
// Info().name is "eigen".
absl::StatusOr<std::unique_ptr<Backend>> MakeEigenBackend(
    const NetworkWeights& weights, const EigenBackendOptions& options);

// The kernel "auto" resolves to on this CPU and build.
std::string EigenDefaultKernel();
// Whether `kernel` ("avx512", "avx2", "eigen") runs here.
bool EigenKernelAvailable(const std::string& kernel);

// "Eigen 3.4.0 (SSE, SSE2), kernel avx512 (CPU: avx2 fma avx512f)".
std::string EigenRuntimeSummary(const std::string& kernel = "auto");

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_EIGEN_BACKEND_H_
