// The LibTorch inference backend (CPU, or CUDA where LibTorch was built with
// it), and LibTorch measurements for `volkhv bench nn`. This header does not
// include LibTorch.
#ifndef VOLKHV_NN_TORCH_BACKEND_H_
#define VOLKHV_NN_TORCH_BACKEND_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "nn/backend.h"
#include "nn/weights_file.h"

namespace volkhv::nn {

// The number format the backend computes in. Weights are folded in float32
// and then converted; input and output buffers are float32 whatever it is.
enum class Precision { kFloat32, kBFloat16, kFloat16 };

// "fp32", "bf16" or "fp16"; errors name the known ones.
absl::StatusOr<Precision> ParsePrecision(std::string_view name);
std::string PrecisionName(Precision precision);

struct TorchBackendOptions {
  // "cpu", "cuda" or "cuda:N". CUDA needs a LibTorch built with it and a
  // GPU; otherwise creating the backend fails with an error saying so.
  std::string device = "cpu";
  // Intra-op threads on the CPU; 0 = one per core. LibTorch's thread count
  // is per calling thread (OpenMP): Compute sets it when it differs. Use 1
  // when other busy threads or processes share the cores: OpenMP's barriers
  // then wait for descheduled threads (measured on the shared 2-core
  // machine: 2 threads ran 10-100x slower than 1 under load).
  int threads = 0;
  // Fold batch norm into the convolutions at load (faster; same function up
  // to rounding). Off: run the nn/network.h module in eval mode.
  bool fold_batchnorm = true;
  // Channels-last (NHWC) activations and weights: oneDNN's fast path on the
  // CPU. Only with fold_batchnorm.
  bool channels_last = true;
  // bf16 and fp16 need fold_batchnorm. Creating the backend runs one
  // position in that format and fails (FailedPrecondition, one line naming
  // the precision and device) where this LibTorch cannot compute it there,
  // e.g. fp16 convolutions on the CPU.
  Precision precision = Precision::kFloat32;
  int max_batch = 1024;
  // BackendInfo::preferred_batch; 0 = 64 on the CPU, 256 on CUDA.
  int preferred_batch = 0;
};

// A backend computing `weights` (already validated, e.g. by
// ReadNetworkWeights). Info().name is "torch-cpu" or "torch-cuda", with
// "-bf16" or "-fp16" appended in half precision. Compute
// runs under torch::InferenceMode, reads the input in place
// (torch::from_blob) and writes softmaxed WDL. Thread-safety as in
// nn/backend.h: Compute from one thread at a time.
absl::StatusOr<std::unique_ptr<Backend>> MakeTorchBackend(
    const NetworkWeights& weights, const TorchBackendOptions& options);

// Whether LibTorch sees a usable CUDA device.
bool TorchCudaAvailable();

// "LibTorch 1.13.1, 2 CPU threads, oneDNN yes, CUDA no (0 devices)".
std::string TorchRuntimeSummary();

// The machine's LibTorch throughput on plain workloads, for comparison with
// a net's achieved GFLOP/s.
struct TorchCeiling {
  double matmul_gflops = 0;  // square float32 matmul, n = matmul_size
  int matmul_size = 0;
  // The same matmul in bfloat16 (CUDA only; 0 on the CPU).
  double matmul_bf16_gflops = 0;
  double conv_nchw_gflops = 0;  // 3x3 conv, filters -> filters, batch, HxW
  double conv_nhwc_gflops = 0;  // the same, channels-last
  // A plain tower (6 blocks of two 3x3 conv + bias + ReLU, residual adds),
  // channels-last, as the best case for a ResNet of this width.
  double tower_gflops = 0;
};
// Spends about `seconds` in each measurement. Sets the thread count as
// options.threads does.
absl::StatusOr<TorchCeiling> MeasureTorchCeiling(
    const TorchBackendOptions& options, int filters, int height, int width,
    int batch, double seconds);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_TORCH_BACKEND_H_
