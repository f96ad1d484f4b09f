#include "nn/torch_backend.h"

#include <ATen/Parallel.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "engine/util/strings.h"
#include "nn/network.h"
#include "nn/torch_weights.h"

namespace volkhv::nn {
namespace {

// A convolution with batch norm folded in: conv(x, w) * s + (beta - mean*s)
// with s = gamma / sqrt(var + eps) equals conv(x, w * s) + (beta - mean*s).
struct FoldedConv {
  torch::Tensor weight;
  torch::Tensor bias;
  int padding = 0;

  torch::Tensor operator()(const torch::Tensor& x) const {
    return torch::conv2d(x, weight, bias, /*stride=*/1, padding);
  }
};

struct FoldedBlock {
  FoldedConv conv1, conv2;
  bool se = false;
  torch::Tensor se_w1, se_b1, se_w2, se_b2;
};

// The tensors of weights that passed validation, as LibTorch tensors.
class TensorSource {
 public:
  explicit TensorSource(const NetworkWeights& weights) : weights_(weights) {}

  torch::Tensor Get(const std::string& name) const {
    const TensorData* data = weights_.Find(name);
    // Presence and shapes were checked before construction.
    return torch::from_blob(const_cast<float*>(data->values.data()),
                            data->shape, torch::kFloat32)
        .clone();
  }

  FoldedConv ConvBn(const std::string& conv, const std::string& bn) const {
    torch::Tensor scale =
        Get(bn + ".weight") /
        torch::sqrt(Get(bn + ".running_var") + kBatchNormEpsilon);
    torch::Tensor w = Get(conv + ".weight");
    FoldedConv folded;
    folded.weight = w * scale.view({-1, 1, 1, 1});
    folded.bias = Get(bn + ".bias") - Get(bn + ".running_mean") * scale;
    folded.padding = static_cast<int>(w.size(2) / 2);
    return folded;
  }

 private:
  const NetworkWeights& weights_;
};

// dst[c * rows + r] = src[r * cols + c].
void Transpose(const float* src, int64_t rows, int64_t cols, float* dst) {
  int64_t r = 0;
#ifdef __SSE__
  for (; r + 4 <= rows; r += 4) {
    const float* s = src + r * cols;
    int64_t c = 0;
    for (; c + 4 <= cols; c += 4) {
      __m128 r0 = _mm_loadu_ps(s + c);
      __m128 r1 = _mm_loadu_ps(s + cols + c);
      __m128 r2 = _mm_loadu_ps(s + 2 * cols + c);
      __m128 r3 = _mm_loadu_ps(s + 3 * cols + c);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      _mm_storeu_ps(dst + c * rows + r, r0);
      _mm_storeu_ps(dst + (c + 1) * rows + r, r1);
      _mm_storeu_ps(dst + (c + 2) * rows + r, r2);
      _mm_storeu_ps(dst + (c + 3) * rows + r, r3);
    }
    for (; c < cols; ++c) {
      for (int i = 0; i < 4; ++i) dst[c * rows + r + i] = s[i * cols + c];
    }
  }
#endif
  for (; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
  }
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

// Waits for queued device work (CUDA is asynchronous).
void Sync(const torch::Tensor& t) {
  if (t.is_cuda()) t.reshape(-1)[0].item<float>();
}

// Runs `step` repeatedly for about `seconds` after two warm-up runs; returns
// runs per second of the median run (other processes share the cores).
double RunsPerSecond(const std::function<torch::Tensor()>& step,
                     double seconds) {
  Sync(step());
  Sync(step());
  std::vector<double> times;
  const auto start = std::chrono::steady_clock::now();
  do {
    const auto run = std::chrono::steady_clock::now();
    Sync(step());
    times.push_back(Seconds(run));
  } while (Seconds(start) < seconds || times.size() < 3);
  std::sort(times.begin(), times.end());
  return 1 / times[times.size() / 2];
}

torch::ScalarType ScalarTypeOf(Precision precision) {
  switch (precision) {
    case Precision::kBFloat16:
      return torch::kBFloat16;
    case Precision::kFloat16:
      return torch::kFloat16;
    case Precision::kFloat32:
      break;
  }
  return torch::kFloat32;
}

int DefaultThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

absl::StatusOr<torch::Device> ParseDevice(const std::string& name) {
  if (name != "cpu" && name != "cuda" && !name.starts_with("cuda:")) {
    return absl::InvalidArgumentError(
        Cat("unknown device '", name, "' (known: cpu, cuda, cuda:N)"));
  }
  if (name == "cpu") return torch::Device(torch::kCPU);
  if (!torch::cuda::is_available()) {
    return absl::FailedPreconditionError(Cat(
        "device ", name, ": this LibTorch has no CUDA support or sees no GPU"));
  }
  try {
    torch::Device device(name);
    if (device.has_index() &&
        device.index() >= static_cast<int>(torch::cuda::device_count())) {
      return absl::InvalidArgumentError(Cat("device ", name, ": only ",
                                            torch::cuda::device_count(),
                                            " CUDA devices"));
    }
    return device;
  } catch (const c10::Error&) {
    return absl::InvalidArgumentError(Cat("bad device name '", name, "'"));
  }
}

class TorchBackend final : public Backend {
 public:
  TorchBackend(const NetworkWeights& weights,
               const TorchBackendOptions& options, torch::Device device)
      : options_(options), device_(device), arch_(weights.architecture()) {
    const proto::Architecture& a = arch_;
    info_.name = device_.is_cuda() ? "torch-cuda" : "torch-cpu";
    if (options.precision != Precision::kFloat32) {
      Append(&info_.name, "-", PrecisionName(options.precision));
    }
    dtype_ = ScalarTypeOf(options.precision);
    info_.input = {a.input_planes(), a.board_height(), a.board_width()};
    info_.policy_size =
        a.policy_channels() * a.board_height() * a.board_width();
    info_.moves_left = HasMovesLeftHead(a);
    info_.max_batch = options.max_batch;
    info_.preferred_batch =
        options.preferred_batch > 0
            ? options.preferred_batch
            : std::min(options.max_batch, device_.is_cuda() ? 256 : 64);
    threads_ = options.threads > 0 ? options.threads : DefaultThreads();
    channels_last_ = options.fold_batchnorm && options.channels_last;
    if (device_.is_cpu()) torch::set_num_threads(threads_);

    c10::InferenceMode guard;
    if (options.fold_batchnorm) {
      Fold(weights);
    } else {
      net_ = Network(arch_);
      // The weights were validated; the module has the same architecture.
      absl::Status loaded = LoadModuleWeights(weights, net_.get());
      (void)loaded;
      net_->eval();
      net_->to(device_);
    }
  }

  const BackendInfo& Info() const override { return info_; }

  void Compute(int batch, const float* input, float* policy_logits, float* wdl,
               float* moves_left) override {
    if (device_.is_cpu() && at::get_num_threads() != threads_) {
      at::set_num_threads(threads_);
    }
    c10::InferenceMode guard;
    const InputShape& shape = info_.input;
    torch::Tensor x = torch::from_blob(
        const_cast<float*>(input),
        {batch, shape.planes, shape.height, shape.width}, torch::kFloat32);
    if (device_.is_cuda()) x = x.to(device_);
    if (dtype_ != torch::kFloat32) x = x.to(dtype_);
    NetworkOutput out;
    if (net_) {
      out = net_->forward(x);
      torch::from_blob(policy_logits, out.policy.sizes(), torch::kFloat32)
          .copy_(out.policy);
    } else {
      out = ForwardFolded(x, policy_logits);
    }
    torch::from_blob(wdl, {batch, 3}, torch::kFloat32)
        .copy_(torch::softmax(out.wdl.to(torch::kFloat32), 1));
    if (moves_left != nullptr && out.moves_left.defined()) {
      torch::from_blob(moves_left, {batch}, torch::kFloat32)
          .copy_(out.moves_left.to(torch::kFloat32));
    }
  }

 private:
  // Weights are folded in float32, then converted.
  torch::Tensor Prepare(torch::Tensor t) const {
    t = t.to(device_, dtype_);
    if (channels_last_ && t.dim() == 4) {
      t = t.contiguous(torch::MemoryFormat::ChannelsLast);
    }
    return t;
  }

  FoldedConv Prepare(FoldedConv conv) const {
    conv.weight = Prepare(conv.weight);
    conv.bias = Prepare(conv.bias);
    return conv;
  }

  void Fold(const NetworkWeights& weights) {
    const TensorSource source(weights);
    input_ = Prepare(source.ConvBn("input.conv", "input.bn"));
    for (int i = 0; i < arch_.blocks(); ++i) {
      const std::string b = Cat("blocks.", i, ".");
      FoldedBlock block;
      block.conv1 = Prepare(source.ConvBn(b + "conv1", b + "bn1"));
      block.conv2 = Prepare(source.ConvBn(b + "conv2", b + "bn2"));
      block.se = arch_.se_ratio() > 0;
      if (block.se) {
        block.se_w1 = Prepare(source.Get(b + "se.fc1.weight"));
        block.se_b1 = Prepare(source.Get(b + "se.fc1.bias"));
        block.se_w2 = Prepare(source.Get(b + "se.fc2.weight"));
        block.se_b2 = Prepare(source.Get(b + "se.fc2.bias"));
      }
      blocks_.push_back(std::move(block));
    }
    policy1_ = Prepare(source.ConvBn("policy.conv1", "policy.bn"));
    policy2_.weight = Prepare(source.Get("policy.conv2.weight"));
    policy2_.bias = Prepare(source.Get("policy.conv2.bias"));
    value_conv_ = Prepare(source.ConvBn("value.conv", "value.bn"));
    value_w1_ = Prepare(source.Get("value.fc1.weight"));
    value_b1_ = Prepare(source.Get("value.fc1.bias"));
    value_w2_ = Prepare(source.Get("value.fc2.weight"));
    value_b2_ = Prepare(source.Get("value.fc2.bias"));
    if (info_.moves_left) {
      moves_left_conv_ =
          Prepare(source.ConvBn("moves_left.conv", "moves_left.bn"));
      moves_left_w1_ = Prepare(source.Get("moves_left.fc1.weight"));
      moves_left_b1_ = Prepare(source.Get("moves_left.fc1.bias"));
      moves_left_w2_ = Prepare(source.Get("moves_left.fc2.weight"));
      moves_left_b2_ = Prepare(source.Get("moves_left.fc2.bias"));
    }
  }

  // The last policy layer (1x1 conv), written to the caller's buffer. Its
  // output is the biggest tensor of the net (B x 32768 floats for the largest
  // game): channels-last, it runs in chunks of positions that stay in the
  // cache, each transposed from [square][channel] to [channel][square].
  void WritePolicy(const torch::Tensor& h, float* policy_logits) {
    const int64_t batch = h.size(0), c = arch_.policy_channels();
    const int64_t squares = h.size(2) * h.size(3);
    if (!channels_last_ || !device_.is_cpu()) {
      torch::Tensor p = policy2_(h);
      torch::from_blob(policy_logits, p.sizes(), torch::kFloat32).copy_(p);
      return;
    }
    constexpr int64_t kChunk = 32;
    for (int64_t b0 = 0; b0 < batch; b0 += kChunk) {
      const int64_t n = std::min(kChunk, batch - b0);
      const torch::Tensor part =
          policy2_(h.narrow(0, b0, n))
              .to(torch::kFloat32)
              .contiguous(torch::MemoryFormat::ChannelsLast);
      const float* src = part.data_ptr<float>();
      float* dst = policy_logits + b0 * c * squares;
      at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          Transpose(src + i * squares * c, squares, c, dst + i * c * squares);
        }
      });
    }
  }

  // Writes the policy logits to `policy_logits` (host memory, [batch, C, H,
  // W]); returns the WDL logits and the moves left (undefined without the
  // head); the policy of the result is undefined.
  NetworkOutput ForwardFolded(torch::Tensor x, float* policy_logits) {
    if (channels_last_) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
    x = input_(x).relu_();
    const int64_t batch = x.size(0), f = arch_.filters();
    for (const FoldedBlock& block : blocks_) {
      torch::Tensor y = block.conv1(x).relu_();
      y = block.conv2(y);
      if (block.se) {
        torch::Tensor g = y.mean({2, 3});
        torch::Tensor z =
            torch::linear(torch::linear(g, block.se_w1, block.se_b1).relu_(),
                          block.se_w2, block.se_b2);
        torch::Tensor gamma = z.slice(1, 0, f).sigmoid().view({batch, f, 1, 1});
        torch::Tensor beta = z.slice(1, f).reshape({batch, f, 1, 1});
        y.mul_(gamma).add_(beta);
      }
      x = y.add_(x).relu_();
    }
    WritePolicy(policy1_(x).relu_(), policy_logits);
    torch::Tensor v = value_conv_(x).relu_().flatten(1);
    NetworkOutput out;
    out.wdl = torch::linear(torch::linear(v, value_w1_, value_b1_).relu_(),
                            value_w2_, value_b2_);
    if (info_.moves_left) {
      torch::Tensor m = moves_left_conv_(x).relu_().flatten(1);
      out.moves_left =
          kMovesLeftScale *
          torch::softplus(
              torch::linear(
                  torch::linear(m, moves_left_w1_, moves_left_b1_).relu_(),
                  moves_left_w2_, moves_left_b2_)
                  .to(torch::kFloat32))
              .flatten();
    }
    return out;
  }

  const TorchBackendOptions options_;
  const torch::Device device_;
  const proto::Architecture arch_;
  BackendInfo info_;
  torch::ScalarType dtype_ = torch::kFloat32;
  int threads_ = 1;
  bool channels_last_ = false;
  // Folded form.
  FoldedConv input_;
  std::vector<FoldedBlock> blocks_;
  FoldedConv policy1_, policy2_, value_conv_;
  torch::Tensor value_w1_, value_b1_, value_w2_, value_b2_;
  // The moves-left head (info_.moves_left only).
  FoldedConv moves_left_conv_;
  torch::Tensor moves_left_w1_, moves_left_b1_, moves_left_w2_, moves_left_b2_;
  // Unfolded form (fold_batchnorm off).
  Network net_{nullptr};
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> MakeTorchBackend(
    const NetworkWeights& weights, const TorchBackendOptions& options) {
  if (absl::Status s = ValidateArchitecture(weights.architecture(),
                                            /*require_geometry=*/true);
      !s.ok()) {
    return s;
  }
  for (const TensorSpec& spec : NetworkTensorSpecs(weights.architecture())) {
    const TensorData* data = weights.Find(spec.name);
    if (data == nullptr || data->shape != spec.shape ||
        static_cast<int64_t>(data->values.size()) != spec.NumElements()) {
      return absl::InvalidArgumentError(
          Cat("missing or misshapen tensor '", spec.name, "'"));
    }
  }
  if (options.max_batch < 1 || options.threads < 0) {
    return absl::InvalidArgumentError("max_batch must be >= 1, threads >= 0");
  }
  const bool half = options.precision != Precision::kFloat32;
  if (half && !options.fold_batchnorm) {
    return absl::InvalidArgumentError(
        Cat("precision ", PrecisionName(options.precision),
            " needs batch norm folded into the convolutions"));
  }
  absl::StatusOr<torch::Device> device = ParseDevice(options.device);
  if (!device.ok()) return device.status();
  std::unique_ptr<Backend> backend;
  try {
    backend = std::make_unique<TorchBackend>(weights, options, *device);
  } catch (const c10::Error& e) {
    return absl::InternalError(Cat("LibTorch: ", e.what_without_backtrace()));
  }
  if (half) {
    // One position of zeros through the whole net: LibTorch lacks some
    // half-precision kernels on some devices (1.13 has no fp16 convolution
    // on the CPU) and says so only when one runs.
    const BackendInfo& info = backend->Info();
    std::vector<float> input(info.input.Size(), 0.0f);
    std::vector<float> policy(info.policy_size);
    float wdl[3];
    try {
      float moves_left = 0;
      backend->Compute(1, input.data(), policy.data(), wdl, &moves_left);
    } catch (const c10::Error& e) {
      std::string why(e.what_without_backtrace());
      if (const size_t eol = why.find('\n'); eol != std::string::npos) {
        why.resize(eol);
      }
      return absl::FailedPreconditionError(
          Cat("precision ", PrecisionName(options.precision), " on device ",
              options.device, ": this LibTorch cannot compute the net in it (",
              why, ")"));
    }
  }
  return backend;
}

absl::StatusOr<Precision> ParsePrecision(std::string_view name) {
  if (name == "fp32") return Precision::kFloat32;
  if (name == "bf16") return Precision::kBFloat16;
  if (name == "fp16") return Precision::kFloat16;
  return absl::InvalidArgumentError(
      Cat("unknown precision '", name, "' (known: fp32, bf16, fp16)"));
}

std::string PrecisionName(Precision precision) {
  switch (precision) {
    case Precision::kBFloat16:
      return "bf16";
    case Precision::kFloat16:
      return "fp16";
    case Precision::kFloat32:
      break;
  }
  return "fp32";
}

bool TorchCudaAvailable() { return torch::cuda::is_available(); }

std::string TorchRuntimeSummary() {
  std::string version = "LibTorch";
#ifdef TORCH_VERSION
  Append(&version, " ", TORCH_VERSION);
#endif
  return Cat(version, ", ", at::get_num_threads(), " CPU threads, oneDNN ",
             at::hasMKLDNN() ? "yes" : "no", ", CUDA ",
             torch::cuda::is_available()
                 ? Cat("yes (", torch::cuda::device_count(), " devices)")
                 : std::string("no"));
}

absl::StatusOr<TorchCeiling> MeasureTorchCeiling(
    const TorchBackendOptions& options, int filters, int height, int width,
    int batch, double seconds) {
  absl::StatusOr<torch::Device> device = ParseDevice(options.device);
  if (!device.ok()) return device.status();
  if (device->is_cpu()) {
    torch::set_num_threads(options.threads > 0 ? options.threads
                                               : DefaultThreads());
  }
  c10::InferenceMode guard;
  torch::manual_seed(1);
  const auto on = torch::TensorOptions().device(*device);
  TorchCeiling ceiling;
  try {
    ceiling.matmul_size = device->is_cuda() ? 8192 : 2048;
    const int64_t n = ceiling.matmul_size;
    torch::Tensor a = torch::randn({n, n}, on), b = torch::randn({n, n}, on);
    ceiling.matmul_gflops =
        RunsPerSecond([&] { return torch::matmul(a, b); }, seconds) * 2.0 * n *
        n * n / 1e9;
    if (device->is_cuda()) {
      const torch::Tensor a16 = a.to(torch::kBFloat16);
      const torch::Tensor b16 = b.to(torch::kBFloat16);
      ceiling.matmul_bf16_gflops =
          RunsPerSecond([&] { return torch::matmul(a16, b16); }, seconds) *
          2.0 * n * n * n / 1e9;
    }

    const double conv_flops =
        2.0 * batch * filters * filters * 9 * height * width;
    torch::Tensor x = torch::randn({batch, filters, height, width}, on);
    torch::Tensor w = torch::randn({filters, filters, 3, 3}, on) * 0.05;
    torch::Tensor bias = torch::randn({filters}, on);
    ceiling.conv_nchw_gflops =
        RunsPerSecond([&] { return torch::conv2d(x, w, bias, 1, 1); },
                      seconds) *
        conv_flops / 1e9;
    x = x.contiguous(torch::MemoryFormat::ChannelsLast);
    w = w.contiguous(torch::MemoryFormat::ChannelsLast);
    ceiling.conv_nhwc_gflops =
        RunsPerSecond([&] { return torch::conv2d(x, w, bias, 1, 1); },
                      seconds) *
        conv_flops / 1e9;

    constexpr int kTowerBlocks = 6;
    std::vector<torch::Tensor> weights;
    for (int i = 0; i < 2 * kTowerBlocks; ++i) {
      weights.push_back((torch::randn({filters, filters, 3, 3}, on) * 0.05)
                            .contiguous(torch::MemoryFormat::ChannelsLast));
    }
    const auto tower = [&] {
      torch::Tensor t = x;
      for (int i = 0; i < kTowerBlocks; ++i) {
        torch::Tensor y = torch::conv2d(t, weights[2 * i], bias, 1, 1).relu_();
        y = torch::conv2d(y, weights[2 * i + 1], bias, 1, 1);
        t = y.add_(t).relu_();
      }
      return t;
    };
    ceiling.tower_gflops =
        RunsPerSecond(tower, seconds) * 2 * kTowerBlocks * conv_flops / 1e9;
  } catch (const c10::Error& e) {
    return absl::InternalError(Cat("LibTorch: ", e.what_without_backtrace()));
  }
  return ceiling;
}

}  // namespace volkhv::nn
