// `volkhv bench nn`: network evaluations per second and achieved GFLOP/s at
// several batch sizes, next to what LibTorch reaches on plain matmul and
// convolution workloads on this machine; on a GPU also the share of its
// bf16 peak (--peak-tflops).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/game_setup.h"
#include "engine/games/games.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"
#include "nn/backend.h"
#include "nn/bundled_net.h"
#include "nn/eigen_backend.h"
#include "nn/evaluator_factory.h"
#include "nn/torch_backend.h"
#include "nn/weights_file.h"

namespace volkhv::cli {
namespace {

constexpr int kMaxBatch = 4096;

// The default --peak-tflops: an 8192^3 bf16 matmul through PyTorch 2.11 on
// the H200 this project's GPU checks run on reached 769-798 TFLOP/s
// (random data, mean of ten products after three warm-ups).
constexpr double kDefaultPeakTflops = 790;

absl::StatusOr<std::vector<int>> ParseBatches(const std::string& text) {
  std::vector<int> batches;
  for (std::string_view part : Split(text, ",", /*skip_empty=*/true)) {
    part = Trim(part);
    absl::StatusOr<int> value =
        ParseInt<int>(part, "option '--batch'", 1, kMaxBatch);
    if (!value.ok()) return value.status();
    batches.push_back(*value);
  }
  if (batches.empty()) {
    return absl::InvalidArgumentError("option '--batch': no batch sizes");
  }
  return batches;
}

// A number in (0, max] for option `name`.
absl::StatusOr<double> ParsePositive(const std::string& name,
                                     const std::string& text, double max,
                                     const std::string& what) {
  const std::optional<double> value = ToDouble(text);
  if (!value || !(*value > 0) || *value > max) {
    return absl::InvalidArgumentError(Cat("option '--", name, "': '", text,
                                          "' is not ", what, " in (0, ", max,
                                          "]"));
  }
  return *value;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int BenchNn(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {
      {"net", "FILE", "auto",
       "network file, or auto (the bundled net of --game)"},
      {"game", "NAME", std::string(DefaultGameName()),
       "the game whose bundled net --net auto runs"},
      {"batch", "N,N,...", "1,8,32,128,256", "batch sizes"},
      {"backend", "NAME", "auto",
       "inference backend: eigen, torch, or auto (as the other commands "
       "choose: eigen where its AVX2 or AVX-512 kernels run, else torch)"},
      {"eigen-kernel", "NAME", "auto",
       "eigen backend's kernel: auto, avx512, avx2 or eigen"},
      {"chunk", "N", "0",
       "eigen backend: positions each thread runs layer by layer (0 = "
       "default)"},
      {"eigen-direct", "", "",
       "eigen backend: direct 3x3 convolutions instead of Winograd"},
      {"device", "NAME", "cpu", "cpu, cuda or cuda:N"},
      {"precision", "P", "fp32",
       "torch backend's number format: fp32, bf16 or fp16 (fp16 needs a "
       "GPU); bf16|fp16 make --backend auto run torch"},
      {"peak-tflops", "T", absl::StrFormat("%g", kDefaultPeakTflops),
       "GPU only: the device's bf16 peak in TFLOP/s, for the '% of peak' "
       "column (default: an H200's measured 8192^3 bf16 matmul)"},
      {"threads", "N", "0", "CPU threads (0 = one per core)"},
      {"seconds", "S", "2", "time per batch size"},
      {"layout", "NAME", "nhwc",
       "activation layout: nhwc (channels-last) or nchw"},
      {"no-fold-bn", "", "",
       "run the module with batch norm instead of folding it"},
      {"no-ceiling", "", "", "skip the matmul/conv ceiling measurement"},
      {"help", "", "", "print this help"},
  };
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 0);
  if (!cl.ok()) return Fail("bench nn", cl.status(), kExitUsage);
  if (cl->Flag("help")) {
    std::cout << "usage: volkhv bench nn [--net FILE|auto] [--game G] [--batch "
                 "1,8,32,128,256] "
                 "[--backend auto|eigen|torch] [--device cpu|cuda] "
                 "[--precision fp32|bf16|fp16] [--peak-tflops T] "
                 "[--threads N] [--seconds S]\n"
              << OptionsHelp(specs);
    return kExitOk;
  }
  if (cl->Get("net").empty()) {
    return Fail("bench nn",
                absl::InvalidArgumentError("option '--net' must not be empty"),
                kExitUsage);
  }
  std::string net = cl->Get("net");
  if (net == nn::kAutoNet) {
    if (absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(cl->Get("game"));
        !game.ok()) {
      return Fail("bench nn", game.status(), kExitUsage);
    }
    absl::StatusOr<std::string> bundled = nn::FindBundledNet(cl->Get("game"));
    if (!bundled.ok()) {
      return Fail("bench nn", bundled.status(), kExitInvalidInput);
    }
    net = *bundled;
  }
  const std::string& backend_name = cl->Get("backend");
  if (backend_name != "auto" && backend_name != "eigen" &&
      backend_name != "torch") {
    return Fail("bench nn",
                absl::InvalidArgumentError(
                    Cat("option '--backend': unknown backend '", backend_name,
                        "' (known: auto, eigen, torch)")),
                kExitUsage);
  }
  const std::string& kernel = cl->Get("eigen-kernel");
  if (kernel != "auto" && kernel != "avx512" && kernel != "avx2" &&
      kernel != "eigen") {
    return Fail("bench nn",
                absl::InvalidArgumentError(
                    Cat("option '--eigen-kernel': unknown kernel '", kernel,
                        "' (known: auto, avx512, avx2, eigen)")),
                kExitUsage);
  }
  absl::StatusOr<int> chunk = cl->GetInt("chunk", 0, 1024);
  if (!chunk.ok()) return Fail("bench nn", chunk.status(), kExitUsage);
  const std::string& layout = cl->Get("layout");
  if (layout != "nhwc" && layout != "nchw") {
    return Fail(
        "bench nn",
        absl::InvalidArgumentError(Cat("option '--layout': unknown layout '",
                                       layout, "' (known: nhwc, nchw)")),
        kExitUsage);
  }
  absl::StatusOr<std::vector<int>> batches = ParseBatches(cl->Get("batch"));
  if (!batches.ok()) return Fail("bench nn", batches.status(), kExitUsage);
  absl::StatusOr<int> threads = cl->GetInt("threads", 0, 1024);
  if (!threads.ok()) return Fail("bench nn", threads.status(), kExitUsage);
  absl::StatusOr<double> seconds =
      ParsePositive("seconds", cl->Get("seconds"), 3600, "a number of seconds");
  if (!seconds.ok()) return Fail("bench nn", seconds.status(), kExitUsage);
  absl::StatusOr<double> peak_tflops = ParsePositive(
      "peak-tflops", cl->Get("peak-tflops"), 1e6, "a rate in TFLOP/s");
  if (!peak_tflops.ok()) {
    return Fail("bench nn", peak_tflops.status(), kExitUsage);
  }
  absl::StatusOr<nn::Precision> precision =
      nn::ParsePrecision(cl->Get("precision"));
  if (!precision.ok()) {
    return Fail("bench nn",
                absl::InvalidArgumentError(Cat("option '--precision': ",
                                               precision.status().message())),
                kExitUsage);
  }
  const bool fp32 = *precision == nn::Precision::kFloat32;
  if (backend_name == "eigen" && !fp32) {
    return Fail("bench nn",
                absl::InvalidArgumentError(
                    "option '--precision': the eigen backend computes in fp32 "
                    "only (use --backend torch)"),
                kExitUsage);
  }

  absl::StatusOr<nn::NetworkWeights> weights = nn::ReadNetworkWeights(net);
  if (!weights.ok()) {
    return Fail("bench nn", weights.status(), kExitInvalidInput);
  }
  const proto::Architecture& arch = weights->architecture();
  const int max_batch = *std::max_element(batches->begin(), batches->end());
  nn::TorchBackendOptions options;
  options.device = cl->Get("device");
  options.threads = *threads;
  options.fold_batchnorm = !cl->Flag("no-fold-bn");
  options.channels_last = layout == "nhwc";
  options.precision = *precision;
  options.max_batch = max_batch;
  nn::EigenBackendOptions eigen_options;
  eigen_options.threads = *threads;
  eigen_options.kernel = kernel;
  eigen_options.chunk = *chunk;
  eigen_options.winograd = !cl->Flag("eigen-direct");
  eigen_options.max_batch = max_batch;
  const bool cpu = options.device == "cpu";
  if (backend_name == "eigen" && !cpu) {
    return Fail("bench nn",
                absl::InvalidArgumentError(
                    "option '--backend': the eigen backend runs on the CPU"),
                kExitUsage);
  }
  // What runs: auto resolves as for every other command (the same at
  // every batch size; nn/evaluator_factory.h).
  std::string runs_on = backend_name;
  if (runs_on == "auto") {
    runs_on = cpu && fp32 ? nn::AutoCpuBackend(kernel) : "torch";
  }
  absl::StatusOr<std::unique_ptr<nn::Backend>> made =
      runs_on == "eigen" ? nn::MakeEigenBackend(*weights, eigen_options)
                         : nn::MakeTorchBackend(*weights, options);
  if (!made.ok()) return Fail("bench nn", made.status(), kExitInvalidInput);
  const std::unique_ptr<nn::Backend> backend = *std::move(made);
  const double flops = static_cast<double>(nn::FlopsPerPosition(arch));
  std::cout << absl::StrFormat(
      "net: %s: %s, %s; %d parameters, %.2f MFLOP per position\n", net,
      weights->header.game(), nn::ArchitectureSummary(arch),
      nn::ParameterCount(arch), flops / 1e6);
  if (runs_on == "eigen") {
    std::cout << absl::StrFormat(
        "backend: eigen: %s; %s 3x3 convolutions; %d threads, chunk %s, "
        "preferred batch %d\n",
        nn::EigenRuntimeSummary(kernel),
        eigen_options.winograd ? "Winograd F(4x4,3x3)" : "direct",
        *threads > 0 ? *threads
                     : static_cast<int>(
                           std::max(1u, std::thread::hardware_concurrency())),
        *chunk > 0 ? std::to_string(*chunk) : std::string("default"),
        backend->Info().preferred_batch);
  } else {
    std::cout << absl::StrFormat(
        "backend: %s (%s; BN %s, %s)\n", backend->Info().name,
        nn::TorchRuntimeSummary(),
        options.fold_batchnorm ? "folded" : "unfolded",
        options.fold_batchnorm && options.channels_last ? "channels-last"
                                                        : "NCHW");
  }
  if (backend_name == "auto") {
    std::cout << absl::StrFormat(
        "auto: %s at every batch size (%s)\n", runs_on,
        !cpu   ? std::string("not on the CPU")
        : fp32 ? Cat("eigen kernel ",
                     kernel == "auto" ? nn::EigenDefaultKernel() : kernel)
               : Cat("precision ", nn::PrecisionName(*precision)));
  }

  // The ceiling first: what this machine's LibTorch reaches on plain work.
  double ceiling = 0;
  if (!cl->Flag("no-ceiling")) {
    constexpr int kCeilingBatch = 256;
    absl::StatusOr<nn::TorchCeiling> c = nn::MeasureTorchCeiling(
        options, arch.filters(), arch.board_height(), arch.board_width(),
        kCeilingBatch, std::min(*seconds, 2.0));
    if (!c.ok()) return Fail("bench nn", c.status(), kExitInvalidInput);
    ceiling =
        std::max({c->conv_nchw_gflops, c->conv_nhwc_gflops, c->tower_gflops});
    std::cout << absl::StrFormat(
        "ceiling: matmul %dx%d %.1f GFLOP/s; 3x3 conv %d->%d filters, batch "
        "%d, %dx%d: NCHW %.1f, channels-last %.1f GFLOP/s; plain 6-block "
        "tower %.1f GFLOP/s\n",
        c->matmul_size, c->matmul_size, c->matmul_gflops, arch.filters(),
        arch.filters(), kCeilingBatch, arch.board_height(), arch.board_width(),
        c->conv_nchw_gflops, c->conv_nhwc_gflops, c->tower_gflops);
    if (c->matmul_bf16_gflops > 0) {
      std::cout << absl::StrFormat(
          "ceiling: bf16 matmul %dx%d %.1f TFLOP/s (%.1f%% of the %g TFLOP/s "
          "peak)\n",
          c->matmul_size, c->matmul_size, c->matmul_bf16_gflops / 1000,
          100 * c->matmul_bf16_gflops / (*peak_tflops * 1000), *peak_tflops);
    }
  }
  // On a GPU: the share of its bf16 peak each batch size reaches.
  const double peak_gflops = cpu ? 0 : *peak_tflops * 1000;

  const nn::BackendInfo& info = backend->Info();
  std::cout << absl::StrFormat("%7s %12s %12s %11s %10s %12s %8s%s\n", "batch",
                               "evals/s", "(mean)", "ms/batch", "GFLOP/s",
                               ceiling > 0 ? "% of conv" : "", "runs on",
                               peak_gflops > 0 ? "  % of peak" : "");
  std::mt19937 rng(1);
  std::bernoulli_distribution bit(0.1);
  for (int batch : *batches) {
    std::vector<float> input(static_cast<size_t>(batch) * info.input.Size());
    for (float& v : input) v = bit(rng) ? 1.0f : 0.0f;
    std::vector<float> policy(static_cast<size_t>(batch) * info.policy_size);
    std::vector<float> wdl(static_cast<size_t>(batch) * 3);
    std::vector<float> moves_left(batch);
    for (int i = 0; i < 3; ++i) {
      backend->Compute(batch, input.data(), policy.data(), wdl.data(),
                       moves_left.data());
    }
    // Other processes share the cores: the median call is the robust
    // figure; the mean over the whole period is printed next to it.
    std::vector<double> times;
    const auto start = std::chrono::steady_clock::now();
    do {
      const auto call = std::chrono::steady_clock::now();
      backend->Compute(batch, input.data(), policy.data(), wdl.data(),
                       moves_left.data());
      times.push_back(SecondsSince(call));
    } while (SecondsSince(start) < *seconds);
    const double mean_evals = times.size() * batch / SecondsSince(start);
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    const double evals = batch / median;
    const double gflops = evals * flops / 1e9;
    std::cout << absl::StrFormat(
        "%7d %12.1f %12.1f %11.3f %10.1f %12s %8s%s\n", batch, evals,
        mean_evals, 1000 * median, gflops,
        ceiling > 0 ? absl::StrFormat("%.1f%%", 100 * gflops / ceiling)
                    : std::string(),
        runs_on,
        peak_gflops > 0
            ? absl::StrFormat("  %9.2f%%", 100 * gflops / peak_gflops)
            : std::string());
  }
  if (ceiling > 0) {
    std::cout << absl::StrFormat(
        "evals/s, ms/batch, GFLOP/s: of the median call; (mean): over the "
        "whole period; %% of conv: of the best of the NCHW conv, "
        "channels-last conv and plain tower ceilings (%.1f GFLOP/s)\n",
        ceiling);
  }
  if (peak_gflops > 0) {
    std::cout << absl::StrFormat(
        "%% of peak: GFLOP/s over the %g TFLOP/s bf16 peak (--peak-tflops); "
        "a call includes copying the batch to the GPU and the policy logits "
        "and WDL back\n",
        *peak_tflops);
  }
  if (runs_on == "eigen" && eigen_options.winograd) {
    std::cout << "GFLOP/s count the direct convolution's operations; "
                 "Winograd F(4x4,3x3) does 4x fewer multiplications in the "
                 "3x3 convolutions\n";
  }
  return kExitOk;
}

}  // namespace volkhv::cli
