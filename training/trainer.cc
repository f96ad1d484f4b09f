#include "training/trainer.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "engine/games/games.h"
#include "engine/util/files.h"
#include "engine/util/strings.h"
#include "engine/util/time.h"
#include "google/protobuf/util/message_differencer.h"
#include "nn/network.h"
#include "nn/torch_weights.h"
#include "training/prefetcher.h"
#include "training/process_group.h"
#include "training/sync_batch_norm.h"
#include "training/training_config.h"

namespace volkhv::training {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The order of TrainerState.pending_sums and of the statistics tensor.
// kMovesLeft came later: a checkpoint written before it holds the first
// kStatsBefore only.
enum Stat {
  kPolicy,
  kValue,
  kTotal,
  kPolicyAccuracy,
  kValueAccuracy,
  kMovesLeft,
  kStats
};
constexpr int kStatsBefore = kMovesLeft;

Losses LossesFromSums(const double* sums, double count, int64_t positions) {
  Losses l;
  if (count <= 0) return l;
  l.policy = sums[kPolicy] / count;
  l.value = sums[kValue] / count;
  l.total = sums[kTotal] / count;
  l.policy_accuracy = sums[kPolicyAccuracy] / count;
  l.value_accuracy = sums[kValueAccuracy] / count;
  l.moves_left = sums[kMovesLeft] / count;
  l.positions = positions;
  return l;
}

// The moves-left loss per position: Huber with delta 0.5 on plies /
// kMovesLeftScale (lc0's); zeros when the net has no head.
torch::Tensor MovesLeftLoss(const nn::NetworkOutput& out,
                            const torch::Tensor& target) {
  if (!out.moves_left.defined()) return torch::zeros_like(target);
  return torch::huber_loss(out.moves_left / nn::kMovesLeftScale,
                           target / nn::kMovesLeftScale, at::Reduction::None,
                           /*delta=*/0.5);
}

absl::Status TorchError(std::string_view what, const c10::Error& e) {
  return absl::InternalError(Cat(what, ": ", e.what_without_backtrace()));
}

absl::StatusOr<torch::Device> ParseDevice(const std::string& name) {
  if (name == "cpu") return torch::Device(torch::kCPU);
  if (name == "cuda" || name.starts_with("cuda:")) {
    if (!torch::cuda::is_available()) {
      return absl::FailedPreconditionError(
          Cat("device ", name,
              ": LibTorch sees no CUDA device (a CPU-only LibTorch or no "
              "GPU)"));
    }
    try {
      return torch::Device(name);
    } catch (const c10::Error& e) {
      return absl::InvalidArgumentError(
          Cat("device '", name, "': ", e.what_without_backtrace()));
    }
  }
  return absl::InvalidArgumentError(
      Cat("device: expected cpu, cuda or cuda:N, got '", name, "'"));
}

// LibTorch's autocast to bfloat16 for one device type, for a scope (what
// Python's torch.autocast does on entering and leaving). LibTorch 2.4
// replaced the per-device functions by ones taking the device type.
class AutocastScope {
 public:
  AutocastScope(bool enabled, c10::DeviceType type)
      : enabled_(enabled), type_(type) {
    if (!enabled_) return;
#if TORCH_VERSION_MAJOR > 2 || \
    (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    was_enabled_ = at::autocast::is_autocast_enabled(type_);
    dtype_ = at::autocast::get_autocast_dtype(type_);
    at::autocast::set_autocast_dtype(type_, at::kBFloat16);
    at::autocast::set_autocast_enabled(type_, true);
#else
    if (type_ == c10::DeviceType::CUDA) {
      was_enabled_ = at::autocast::is_enabled();
      dtype_ = at::autocast::get_autocast_gpu_dtype();
      at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
      at::autocast::set_enabled(true);
    } else {
      was_enabled_ = at::autocast::is_cpu_enabled();
      dtype_ = at::autocast::get_autocast_cpu_dtype();
      at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
      at::autocast::set_cpu_enabled(true);
    }
#endif
    at::autocast::increment_nesting();
  }

  ~AutocastScope() {
    if (!enabled_) return;
    // The cache holds bf16 copies of the weights: stale after the
    // optimiser's step.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
#if TORCH_VERSION_MAJOR > 2 || \
    (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(type_, was_enabled_);
    at::autocast::set_autocast_dtype(type_, dtype_);
#else
    if (type_ == c10::DeviceType::CUDA) {
      at::autocast::set_enabled(was_enabled_);
      at::autocast::set_autocast_gpu_dtype(dtype_);
    } else {
      at::autocast::set_cpu_enabled(was_enabled_);
      at::autocast::set_autocast_cpu_dtype(dtype_);
    }
#endif
  }

  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  const bool enabled_;
  const c10::DeviceType type_;
  bool was_enabled_ = false;
  at::ScalarType dtype_ = at::kFloat;
};

// The forward pass, under autocast to bf16 when `bf16`; float32 outputs.
nn::NetworkOutput Forward(nn::Network& module, const torch::Tensor& x,
                          bool bf16) {
  nn::NetworkOutput out;
  {
    AutocastScope autocast(bf16, x.device().type());
    out = module->forward(x);
  }
  if (bf16) {
    out.policy = out.policy.to(torch::kFloat32);
    out.wdl = out.wdl.to(torch::kFloat32);
    if (out.moves_left.defined()) {
      out.moves_left = out.moves_left.to(torch::kFloat32);
    }
  }
  return out;
}

int64_t FileSize(const std::string& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  return error ? 0 : static_cast<int64_t>(size);
}

std::string Number(double v) { return absl::StrFormat("%.6g", v); }

void DefaultWarn(const std::string& line) { std::cerr << line << "\n"; }

// A step allocates and frees tensors of tens of MB (the largest
// game's policy logits alone are batch x 32768 floats). glibc serves blocks of
// 32 MB and more with mmap and unmaps them when freed, so the kernel maps and
// zeroes those pages again at every step. Serving everything from the heap and
// never trimming it removes that (measured with the default CPU net at batch
// 256: kernel time 1.4 s -> 0.4 s per 10 steps, 20 % less wall time).
// Process-wide; the memory stays with the process.
void KeepLargeBlocksInTheHeap() {
#if defined(__GLIBC__)
  static const bool done = [] {
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    return true;
  }();
  (void)done;
#endif
}

// A batch as tensors (views of its buffers on the CPU, copies elsewhere):
// planes, the policy targets' indices and probabilities, the most visited
// move's index, the WDL target, the plies to the game's end.
struct BatchTensors {
  torch::Tensor x, index, prob, best, wdl, moves_left;
};

BatchTensors ToTensors(const Batch& b, const InputShape& shape,
                       const torch::Device& device) {
  const int64_t n = b.size;
  auto blob = [&](const void* data, std::vector<int64_t> sizes,
                  torch::ScalarType type) {
    torch::Tensor t = torch::from_blob(const_cast<void*>(data), sizes, type);
    return device.is_cpu() ? t : t.to(device);
  };
  return {
      blob(b.planes.data(), {n, shape.planes, shape.height, shape.width},
           torch::kFloat32),
      blob(b.policy_index.data(), {n, kTargetStride}, torch::kInt64)
          .narrow(1, 0, b.target_width),
      blob(b.policy_prob.data(), {n, kTargetStride}, torch::kFloat32)
          .narrow(1, 0, b.target_width),
      blob(b.best_index.data(), {n}, torch::kInt64),
      blob(b.wdl.data(), {n, 3}, torch::kFloat32),
      blob(b.moves_left.data(), {n}, torch::kFloat32),
  };
}

// Across processes every rank trains on an equal slice of each batch.
absl::Status CheckBatchSplit(int batch_size, int world_size) {
  if (batch_size % world_size == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      Cat("training.batch_size ", batch_size,
          " is not a multiple of the world size ", world_size,
          " (every rank trains an equal slice of each batch)"));
}

}  // namespace

std::string TrainingLogHeader(bool moves_left) {
  std::string header =
      "step,lr,train_policy_loss,train_value_loss,train_total_loss,"
      "train_policy_accuracy,train_value_accuracy,val_policy_loss,"
      "val_value_loss,val_total_loss,val_policy_accuracy,"
      "val_value_accuracy,window_positions,samples_per_s,load_wait_share";
  if (!moves_left) return header;
  // Before the timing columns, which stay last.
  const size_t window = header.find(",window_positions");
  header.insert(window, ",train_moves_left_loss,val_moves_left_loss");
  return header;
}

struct Trainer::Impl {
  // Null in one process. First, so that it goes last.
  std::unique_ptr<ProcessGroup> group;
  TrainerOptions options;
  proto::TrainerState state;
  torch::Device device{torch::kCPU};
  nn::Network module{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<Dataset> dataset;
  std::vector<Sample> validation_sample;
  Batch validation_batch;
  std::unique_ptr<Prefetcher> prefetcher;
  bool resumed = false;

  // This process's totals.
  double load_seconds = 0;
  double train_seconds = 0;
  int64_t first_step = 0;
  int64_t steps_run = 0;
  int64_t positions_run = 0;
  // Since the last log line.
  double line_seconds = 0;
  double line_wait_start = 0;
  int64_t line_positions = 0;
  Losses last_train;
  bool has_validation = false;
  Losses last_validation;

  const proto::TrainingConfig& config() const { return state.config(); }
  int rank() const { return group ? group->rank() : 0; }
  int world_size() const { return group ? group->world_size() : 1; }
  // Only rank 0 writes the run's files and validates.
  bool writes_files() const { return rank() == 0; }
  // Positions of each step's batch that this rank trains on.
  int local_batch() const { return config().batch_size() / world_size(); }
  bool bf16() const {
    return config().mixed_precision() == proto::TrainingConfig::BF16;
  }
  bool moves_left_head() const {
    return nn::HasMovesLeftHead(state.header().architecture());
  }

  // Whether this LibTorch can run a bf16 autocast step's forward and
  // backward on the device: one batch of zeros through the module in eval
  // mode (no batch-norm statistics change), gradients cleared after.
  absl::Status CheckMixedPrecision(const InputShape& shape) {
    if (!bf16()) return absl::OkStatus();
    try {
      module->eval();
      torch::Tensor x =
          torch::zeros({2, shape.planes, shape.height, shape.width},
                       torch::TensorOptions().device(device));
      nn::NetworkOutput out = Forward(module, x, /*bf16=*/true);
      (out.policy.sum() + out.wdl.sum()).backward();
      module->zero_grad();
      module->train();
    } catch (const c10::Error& e) {
      module->zero_grad();
      module->train();
      std::string why(e.what_without_backtrace());
      if (const size_t eol = why.find('\n'); eol != std::string::npos) {
        why.resize(eol);
      }
      return absl::FailedPreconditionError(Cat(
          "training.mixed_precision BF16 on device ", options.device,
          ": this LibTorch cannot train in bf16 there (", why, "); use OFF"));
    }
    return absl::OkStatus();
  }

  void SetThreads() const {
    if (options.threads > 0 && at::get_num_threads() != options.threads) {
      torch::set_num_threads(options.threads);
    }
  }

  double WaitSeconds() const {
    return prefetcher ? prefetcher->wait_seconds() : 0;
  }

  absl::Status MakeOptimizer() {
    std::vector<torch::Tensor> decay, no_decay;
    // Convolution and linear weights are decayed; biases and batch norm's
    // parameters are not.
    for (const auto& item : module->named_parameters()) {
      (item.value().dim() > 1 ? decay : no_decay).push_back(item.value());
    }
    const proto::TrainingConfig& c = config();
    try {
      if (c.optimizer() == proto::TrainingConfig::ADAMW) {
        auto options = [&](double wd) {
          return std::make_unique<torch::optim::AdamWOptions>(
              torch::optim::AdamWOptions(c.learning_rate())
                  .betas({c.momentum(), c.adam_beta2()})
                  .weight_decay(wd));
        };
        std::vector<torch::optim::OptimizerParamGroup> groups;
        groups.emplace_back(decay, options(c.weight_decay()));
        groups.emplace_back(no_decay, options(0));
        optimizer = std::make_unique<torch::optim::AdamW>(std::move(groups),
                                                          *options(0));
      } else {
        const bool nesterov = c.momentum() > 0;
        auto options = [&](double wd) {
          return std::make_unique<torch::optim::SGDOptions>(
              torch::optim::SGDOptions(c.learning_rate())
                  .momentum(c.momentum())
                  .nesterov(nesterov)
                  .weight_decay(wd));
        };
        std::vector<torch::optim::OptimizerParamGroup> groups;
        groups.emplace_back(decay, options(c.weight_decay()));
        groups.emplace_back(no_decay, options(0));
        optimizer =
            std::make_unique<torch::optim::SGD>(std::move(groups), *options(0));
      }
    } catch (const c10::Error& e) {
      return TorchError("optimiser", e);
    }
    return absl::OkStatus();
  }

  // The error of a non-finite loss at `step`: the losses and the first
  // positions of the batch (file, game, ply).
  absl::Status NonFiniteLoss(int64_t step, double policy, double value) {
    const std::vector<Sample> samples =
        dataset->SampleBatch(config().seed(), step, config().batch_size(),
                             config().symmetry_augmentation());
    std::string from;
    constexpr size_t kShown = 4;
    for (size_t i = 0; i < samples.size() && i < kShown; ++i) {
      Append(&from, i ? "; " : "", dataset->Origin(samples[i].ref));
    }
    if (samples.size() > kShown) {
      Append(&from, "; and ", samples.size() - kShown, " more");
    }
    return absl::DataLossError(
        Cat("training step ", step + 1, ": the loss is not finite (policy ",
            policy, ", value ", value,
            "); nothing of this step was applied or saved; the batch came "
            "from ",
            options.records_dir, ": ", from));
  }

  // Whether every parameter and buffer of the module is finite.
  bool ModuleFinite() {
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& p : module->parameters()) {
      if (!torch::isfinite(p).all().item<bool>()) return false;
    }
    for (const torch::Tensor& b : module->buffers()) {
      if (b.is_floating_point() && !torch::isfinite(b).all().item<bool>()) {
        return false;
      }
    }
    return true;
  }

  absl::Status SaveCheckpoint() {
    if (options.checkpoint.empty() || !writes_files()) return absl::OkStatus();
    if (!ModuleFinite()) {
      return absl::DataLossError(
          Cat(options.checkpoint,
              ": not written: the net's weights are not finite (step ",
              state.step(), ")"));
    }
    state.set_log_path(options.log_csv);
    state.set_log_bytes(options.log_csv.empty() ? 0
                                                : FileSize(options.log_csv));
    std::string state_bytes;
    if (!state.SerializeToString(&state_bytes)) {
      return absl::InternalError("cannot serialize the trainer state");
    }
    std::ostringstream out;
    try {
      torch::serialize::OutputArchive archive;
      torch::Tensor bytes = torch::empty(
          {static_cast<int64_t>(state_bytes.size())}, torch::kUInt8);
      std::memcpy(bytes.data_ptr(), state_bytes.data(), state_bytes.size());
      archive.write("trainer_state", bytes);
      torch::serialize::OutputArchive module_archive;
      module->save(module_archive);
      archive.write("module", module_archive);
      torch::serialize::OutputArchive optimizer_archive;
      optimizer->save(optimizer_archive);
      archive.write("optimizer", optimizer_archive);
      archive.save_to(out);
    } catch (const c10::Error& e) {
      return TorchError(Cat(options.checkpoint, ": cannot write"), e);
    }
    return WriteFileAtomically(options.checkpoint, out.str());
  }

  // The checkpoint file's bytes.
  absl::StatusOr<std::string> ReadCheckpointFile() const {
    return ReadWholeFile(options.checkpoint, 4 * nn::kMaxNetworkFileBytes,
                         "checkpoint");
  }

  // Parses a checkpoint's bytes: its state into `out`; the module and the
  // optimiser are loaded later from the returned archive.
  absl::StatusOr<std::unique_ptr<torch::serialize::InputArchive>>
  ParseCheckpoint(const std::string& bytes, proto::TrainerState* out) {
    auto archive = std::make_unique<torch::serialize::InputArchive>();
    try {
      std::istringstream in(bytes);
      archive->load_from(in, device);
      torch::Tensor state_bytes;
      archive->read("trainer_state", state_bytes);
      state_bytes = state_bytes.to(torch::kCPU).contiguous();
      if (!out->ParseFromArray(state_bytes.data_ptr(),
                               static_cast<int>(state_bytes.numel()))) {
        return absl::DataLossError(
            Cat(options.checkpoint, ": damaged trainer state"));
      }
    } catch (const c10::Error& e) {
      return absl::DataLossError(
          Cat(options.checkpoint, ": not a readable checkpoint (",
              e.what_without_backtrace(), "); remove it to start afresh"));
    }
    return archive;
  }

  // Across processes: rank 0's checkpoint bytes on every rank ("" when it
  // has none); an error of rank 0's reading on every rank.
  absl::StatusOr<std::string> ShareCheckpoint() {
    // 'N': no checkpoint; 'C' and the bytes; 'E' and rank 0's error.
    std::string envelope;
    if (rank() == 0) {
      envelope = "N";
      if (!options.checkpoint.empty() &&
          std::filesystem::exists(options.checkpoint)) {
        absl::StatusOr<std::string> bytes = ReadCheckpointFile();
        envelope =
            bytes.ok() ? Cat("C", *bytes) : Cat("E", bytes.status().message());
      }
    }
    if (absl::Status s =
            group->BroadcastBytes(&envelope, "sharing rank 0's checkpoint");
        !s.ok()) {
      return s;
    }
    if (envelope.empty() || envelope[0] == 'N') return std::string();
    if (envelope[0] == 'E') {
      return absl::FailedPreconditionError(
          Cat(rank() == 0 ? "" : "rank 0: ", envelope.substr(1)));
    }
    return envelope.substr(1);
  }

  // Across processes: rank 0's parameters and buffers on every rank.
  absl::Status ShareModule() {
    try {
      torch::NoGradGuard no_grad;
      for (const torch::Tensor& p : module->parameters()) {
        torch::Tensor data = p.detach();
        group->BroadcastOrThrow(data);
      }
      for (const torch::Tensor& b : module->buffers()) {
        torch::Tensor data = b.detach();
        group->BroadcastOrThrow(data);
      }
    } catch (const std::exception& e) {
      return absl::UnavailableError(
          Cat("sharing rank 0's weights (rank ", rank(), "): ", e.what()));
    }
    return absl::OkStatus();
  }

  // Across processes: the call and the data of every rank are rank 0's. A
  // rank whose record files differ reads rank 0's (`data_options` with
  // them); one whose configuration, steps or generation differ fails.
  absl::Status AgreeWithRankZero(DatasetOptions data_options) {
    auto summary = [&] {
      proto::TrainerState s;
      *s.mutable_config() = state.config();
      s.set_step(state.step());
      s.set_target_step(state.target_step());
      s.set_generation(state.generation());
      for (const std::string& f : dataset->record_files()) {
        s.add_record_files(f);
      }
      return s;
    };
    proto::TrainerState mine = summary();
    std::string bytes;
    if (rank() == 0 && !mine.SerializeToString(&bytes)) {
      return absl::InternalError("cannot serialize the trainer state");
    }
    if (absl::Status s =
            group->BroadcastBytes(&bytes, "comparing the ranks' training");
        !s.ok()) {
      return s;
    }
    proto::TrainerState zero;
    if (!zero.ParseFromString(bytes)) {
      return absl::DataLossError("rank 0's training state arrived damaged");
    }
    std::vector<std::string> differ;
    if (!google::protobuf::util::MessageDifferencer::Equivalent(
            zero.config(), mine.config())) {
      differ.push_back("training configuration");
    }
    if (zero.step() != mine.step() ||
        zero.target_step() != mine.target_step()) {
      differ.push_back(Cat("steps ", mine.step(), " -> ", mine.target_step(),
                           " (rank 0: ", zero.step(), " -> ",
                           zero.target_step(), ")"));
    }
    if (zero.generation() != mine.generation()) {
      differ.push_back(Cat("generation ", mine.generation(),
                           " (rank 0: ", zero.generation(), ")"));
    }
    if (!differ.empty()) {
      return absl::FailedPreconditionError(
          Cat("rank ", rank(), ": its ", absl::StrJoin(differ, ", "),
              " differ from rank 0's; start every rank with the same "
              "--config, --steps, --batch, --net-in, --generation and "
              "--records"));
    }
    if (!std::equal(zero.record_files().begin(), zero.record_files().end(),
                    mine.record_files().begin(), mine.record_files().end())) {
      options.warn(Cat("note: rank ", rank(), " reads rank 0's ",
                       zero.record_files_size(), " record files (it saw ",
                       mine.record_files_size(), ")"));
      data_options.record_files.assign(zero.record_files().begin(),
                                       zero.record_files().end());
      absl::StatusOr<std::unique_ptr<Dataset>> reloaded =
          Dataset::Load(data_options, options.warn);
      if (!reloaded.ok()) return reloaded.status();
      dataset = *std::move(reloaded);
    }
    // The same files must hold the same positions for every rank.
    const DatasetStats& d = dataset->stats();
    torch::Tensor counts =
        torch::tensor({static_cast<int64_t>(d.window_positions),
                       static_cast<int64_t>(dataset->train().size()),
                       static_cast<int64_t>(d.validation_positions)},
                      torch::kInt64);
    torch::Tensor zero_counts = counts.clone();
    if (absl::Status s =
            group->Broadcast(zero_counts, "comparing the ranks' records");
        !s.ok()) {
      return s;
    }
    if (!torch::equal(counts, zero_counts)) {
      return absl::FailedPreconditionError(
          Cat("rank ", rank(), ": its records under ", options.records_dir,
              " hold other positions than rank 0's (window ",
              d.window_positions, ", rank 0's ", zero_counts[0].item<int64_t>(),
              "); every rank must see the same record files"));
    }
    return absl::OkStatus();
  }

  // Across processes: every gradient averaged over the ranks (one
  // all-reduce of them all, flattened).
  void AverageGradients() {
    std::vector<torch::Tensor> grads;
    for (torch::Tensor& p : module->parameters()) {
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      grads.push_back(p.grad());
    }
    std::vector<torch::Tensor> flat_parts;
    flat_parts.reserve(grads.size());
    for (const torch::Tensor& g : grads) flat_parts.push_back(g.reshape({-1}));
    torch::Tensor flat = torch::cat(flat_parts);
    group->AllReduceSumOrThrow(flat);
    flat.div_(world_size());
    int64_t offset = 0;
    for (torch::Tensor& g : grads) {
      const int64_t n = g.numel();
      g.view({-1}).copy_(flat.narrow(0, offset, n));
      offset += n;
    }
  }

  // One optimiser step.
  absl::StatusOr<Losses> Step() {
    const int64_t step = state.step();
    if (!prefetcher) {
      const Dataset* data = dataset.get();
      const uint64_t seed = config().seed();
      const int batch_size = config().batch_size();
      const bool augment = config().symmetry_augmentation();
      const int64_t target = state.target_step();
      // Across processes this rank's slice of the step's batch.
      const int world = world_size();
      const int first = rank() * local_batch();
      const int count = local_batch();
      const ValueTarget value{
          .result_discount = config().result_discount(),
          .search_value_weight = config().search_value_weight(),
          .td_value_weight = config().td_value_weight(),
          .td_horizon = config().td_horizon_plies()};
      prefetcher = std::make_unique<Prefetcher>(
          [=](int64_t s, Batch* batch) -> absl::Status {
            if (s >= target) {  // built ahead past the call's end
              batch->size = 0;
              return absl::OkStatus();
            }
            std::vector<Sample> samples =
                data->SampleBatch(seed, s, batch_size, augment);
            if (world > 1) {
              samples = std::vector<Sample>(samples.begin() + first,
                                            samples.begin() + first + count);
            }
            return data->BuildBatch(samples, value, batch);
          },
          step, config().loader_threads(), config().prefetch_batches());
      line_wait_start = 0;
    }
    const Clock::time_point start = Clock::now();
    absl::StatusOr<const Batch*> next = prefetcher->Next();
    if (!next.ok()) return next.status();
    const Batch& b = **next;
    if (b.step != step || b.size != local_batch()) {
      return absl::InternalError(Cat("the prefetcher built step ", b.step, " (",
                                     b.size, " positions), not ", step));
    }
    const double lr = LearningRate(config(), step);
    Losses losses;
    try {
      for (torch::optim::OptimizerParamGroup& group :
           optimizer->param_groups()) {
        group.options().set_lr(lr);
      }
      const InputShape shape = dataset->encoder().Shape();
      const int64_t n = b.size;
      const auto [x, index, prob, best, wdl, plies_left] =
          ToTensors(b, shape, device);

      module->train();
      nn::NetworkOutput out = Forward(module, x, bf16());
      torch::Tensor log_policy = torch::log_softmax(out.policy, 1);
      torch::Tensor policy_loss =
          -(prob * log_policy.gather(1, index)).sum(1).mean();
      torch::Tensor value_loss =
          -(wdl * torch::log_softmax(out.wdl, 1)).sum(1).mean();
      torch::Tensor total = config().policy_loss_weight() * policy_loss +
                            config().value_loss_weight() * value_loss;
      torch::Tensor moves_left_loss = MovesLeftLoss(out, plies_left).mean();
      if (out.moves_left.defined()) {
        total = total + config().moves_left_loss_weight() * moves_left_loss;
      }
      if (group) {
        absl::StatusOr<Losses> update =
            DistributedUpdate(step, out, policy_loss, value_loss,
                              moves_left_loss, total, best, wdl);
        if (!update.ok()) return update.status();
        FinishStep(step, start);
        return *update;
      }
      // A non-finite loss would put NaN into every weight: refused before
      // the optimiser sees it, naming where the batch came from.
      const double total_value = total.item<double>();
      if (!std::isfinite(total_value)) {
        return NonFiniteLoss(step, policy_loss.item<double>(),
                             value_loss.item<double>());
      }
      optimizer->zero_grad();
      total.backward();
      optimizer->step();

      torch::NoGradGuard no_grad;
      torch::Tensor policy_hit =
          out.policy.argmax(1).eq(best).to(torch::kFloat32).mean();
      torch::Tensor value_hit =
          out.wdl.argmax(1).eq(wdl.argmax(1)).to(torch::kFloat32).mean();
      torch::Tensor stats =
          torch::stack({policy_loss.detach(), value_loss.detach(),
                        total.detach(), policy_hit, value_hit,
                        moves_left_loss.detach()})
              .to(torch::kCPU, torch::kFloat64)
              .contiguous();
      const double* s = stats.data_ptr<double>();
      losses = LossesFromSums(s, 1, n);
      AddPendingSums(s);
    } catch (const c10::Error& e) {
      return TorchError(Cat("training step ", step), e);
    } catch (const std::exception& e) {  // Gloo's, from the batch norms
      return StepError(step, e);
    }
    FinishStep(step, start);
    return losses;
  }

  void AddPendingSums(const double* s) {
    PadPendingSums();
    if (state.pending_sums_size() != kStats) {
      state.clear_pending_sums();
      for (int i = 0; i < kStats; ++i) state.add_pending_sums(0);
    }
    for (int i = 0; i < kStats; ++i) {
      state.set_pending_sums(i, state.pending_sums(i) + s[i]);
    }
  }

  // A checkpoint written before the moves-left loss holds kStatsBefore
  // sums: the moves-left sum is 0 there.
  void PadPendingSums() {
    if (state.pending_sums_size() != kStatsBefore) return;
    while (state.pending_sums_size() < kStats) state.add_pending_sums(0);
  }

  // The counters after the step `step` begun at `start` (the positions of
  // the global batch).
  void FinishStep(int64_t step, Clock::time_point start) {
    const int64_t positions = config().batch_size();
    state.set_pending_steps(state.pending_steps() + 1);
    state.set_step(step + 1);
    state.set_training_positions(state.training_positions() + positions);
    const double seconds = SecondsSince(start);
    train_seconds += seconds;
    line_seconds += seconds;
    line_positions += positions;
    ++steps_run;
    positions_run += positions;
  }

  // A failed collective of step `step` (or any other exception there).
  absl::Status StepError(int64_t step, const std::exception& e) const {
    std::string why(e.what());
    if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
      why = c10_error->what_without_backtrace();
    }
    if (const size_t eol = why.find('\n'); eol != std::string::npos) {
      why.resize(eol);
    }
    if (!group)
      return absl::InternalError(Cat("training step ", step, ": ", why));
    return absl::UnavailableError(
        Cat("training step ", step + 1, " (rank ", rank(), " of ", world_size(),
            "): ", why,
            "; another rank failed or stopped, or a collective waited more "
            "than ",
            options.distributed.timeout_seconds,
            " s; start every rank again to resume from rank 0's checkpoint"));
  }

  // Across processes, the rest of step `step` after the forward pass: the
  // global batch's losses (the mean of the ranks' means, the slices being
  // equal), refused when not finite on every rank alike; the backward
  // pass; the gradients averaged; the optimiser's step.
  absl::StatusOr<Losses> DistributedUpdate(
      int64_t step, const nn::NetworkOutput& out,
      const torch::Tensor& policy_loss, const torch::Tensor& value_loss,
      const torch::Tensor& moves_left_loss, const torch::Tensor& total,
      const torch::Tensor& best, const torch::Tensor& wdl) {
    torch::Tensor stats;
    try {
      {
        torch::NoGradGuard no_grad;
        torch::Tensor policy_hit =
            out.policy.argmax(1).eq(best).to(torch::kFloat32).mean();
        torch::Tensor value_hit =
            out.wdl.argmax(1).eq(wdl.argmax(1)).to(torch::kFloat32).mean();
        stats = torch::stack({policy_loss.detach(), value_loss.detach(),
                              total.detach(), policy_hit, value_hit,
                              moves_left_loss.detach()})
                    .to(torch::kCPU, torch::kFloat64)
                    .contiguous();
        group->AllReduceSumOrThrow(stats);
        stats.div_(world_size());
      }
      const double* s = stats.data_ptr<double>();
      if (!std::isfinite(s[kTotal])) {
        return NonFiniteLoss(step, s[kPolicy], s[kValue]);
      }
      optimizer->zero_grad();
      total.backward();
      AverageGradients();
      optimizer->step();
      AddPendingSums(s);
    } catch (const std::exception& e) {
      return StepError(step, e);
    }
    const Losses losses =
        LossesFromSums(stats.data_ptr<double>(), 1, config().batch_size());
    return losses;
  }

  absl::StatusOr<Losses> Validate() {
    Losses result;
    if (validation_sample.empty()) return result;
    SetThreads();
    double sums[kStats] = {0, 0, 0, 0, 0, 0};
    const int batch_size = config().batch_size();
    const InputShape shape = dataset->encoder().Shape();
    try {
      module->eval();
      torch::NoGradGuard no_grad;
      for (size_t first = 0; first < validation_sample.size();
           first += batch_size) {
        const size_t last =
            std::min(validation_sample.size(), first + batch_size);
        const std::vector<Sample> chunk(validation_sample.begin() + first,
                                        validation_sample.begin() + last);
        if (absl::Status s = dataset->BuildBatch(
                chunk, {.result_discount = config().result_discount()},
                &validation_batch);
            !s.ok()) {
          module->train();
          return s;
        }
        const Batch& b = validation_batch;
        const auto [x, index, prob, best, wdl, plies_left] =
            ToTensors(b, shape, device);
        nn::NetworkOutput out = Forward(module, x, bf16());
        torch::Tensor policy =
            -(prob * torch::log_softmax(out.policy, 1).gather(1, index)).sum(1);
        torch::Tensor value = -(wdl * torch::log_softmax(out.wdl, 1)).sum(1);
        torch::Tensor total = config().policy_loss_weight() * policy +
                              config().value_loss_weight() * value;
        torch::Tensor moves_left = MovesLeftLoss(out, plies_left);
        if (out.moves_left.defined()) {
          total = total + config().moves_left_loss_weight() * moves_left;
        }
        torch::Tensor policy_hit =
            out.policy.argmax(1).eq(best).to(torch::kFloat32);
        torch::Tensor value_hit =
            out.wdl.argmax(1).eq(wdl.argmax(1)).to(torch::kFloat32);
        torch::Tensor stats =
            torch::stack({policy.sum(), value.sum(), total.sum(),
                          policy_hit.sum(), value_hit.sum(), moves_left.sum()})
                .to(torch::kCPU, torch::kFloat64)
                .contiguous();
        for (int i = 0; i < kStats; ++i) sums[i] += stats.data_ptr<double>()[i];
      }
      module->train();
    } catch (const c10::Error& e) {
      module->train();
      return TorchError("validation", e);
    }
    const int64_t n = static_cast<int64_t>(validation_sample.size());
    return LossesFromSums(sums, static_cast<double>(n), n);
  }

  absl::Status WriteLogLine(const TrainProgress& p) {
    if (options.log_csv.empty() || !writes_files()) return absl::OkStatus();
    std::FILE* f = std::fopen(options.log_csv.c_str(), "a");
    if (f == nullptr) {
      return absl::UnavailableError(
          Cat(options.log_csv, ": cannot append: ", std::strerror(errno)));
    }
    std::string line;
    if (FileSize(options.log_csv) == 0) {
      line = TrainingLogHeader(p.moves_left) + "\n";
    }
    Append(&line, p.step, ",", Number(p.learning_rate), ",",
           Number(p.train.policy), ",", Number(p.train.value), ",",
           Number(p.train.total), ",", Number(p.train.policy_accuracy), ",",
           Number(p.train.value_accuracy), ",");
    if (p.has_validation) {
      Append(&line, Number(p.validation.policy), ",",
             Number(p.validation.value), ",", Number(p.validation.total), ",",
             Number(p.validation.policy_accuracy), ",",
             Number(p.validation.value_accuracy), ",");
    } else {
      line += ",,,,,";
    }
    if (p.moves_left) {
      Append(&line, Number(p.train.moves_left), ",",
             p.has_validation ? Number(p.validation.moves_left) : "", ",");
    }
    Append(&line, p.window_positions, ",", Number(p.samples_per_second), ",",
           Number(p.load_wait_share), "\n");
    const bool ok = std::fwrite(line.data(), 1, line.size(), f) == line.size();
    const bool closed = std::fclose(f) == 0;
    if (!ok || !closed) {
      return absl::UnavailableError(Cat(options.log_csv, ": write failed"));
    }
    return absl::OkStatus();
  }

  absl::Status LogLine(bool with_validation, const Losses& validation) {
    TrainProgress p;
    p.step = state.step();
    p.call_done = state.step() - state.call_start_step();
    p.call_total = state.target_step() - state.call_start_step();
    p.learning_rate = LearningRate(config(), std::max<int64_t>(0, p.step - 1));
    p.moves_left = moves_left_head();
    PadPendingSums();
    if (state.pending_sums_size() == kStats) {
      p.train = LossesFromSums(state.pending_sums().data(),
                               static_cast<double>(state.pending_steps()),
                               state.pending_steps() * config().batch_size());
    }
    last_train = p.train;
    p.has_validation = with_validation;
    p.validation = validation;
    p.window_positions = dataset->stats().window_positions;
    const double wait = WaitSeconds();
    if (line_seconds > 0) {
      p.samples_per_second = static_cast<double>(line_positions) / line_seconds;
      p.load_wait_share = (wait - line_wait_start) / line_seconds;
    }
    line_seconds = 0;
    line_positions = 0;
    line_wait_start = wait;
    state.clear_pending_sums();
    state.set_pending_steps(0);
    if (absl::Status s = WriteLogLine(p); !s.ok()) return s;
    if (options.progress) options.progress(p);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<Losses>> Train(int64_t max_steps) {
    SetThreads();
    std::vector<Losses> all;
    const proto::TrainingConfig& c = config();
    for (int64_t i = 0; i < max_steps && state.step() < state.target_step();
         ++i) {
      absl::StatusOr<Losses> losses = Step();
      if (!losses.ok()) return losses.status();
      all.push_back(*losses);
      const int64_t step = state.step();
      const bool last = step == state.target_step();
      const bool validate = !validation_sample.empty() &&
                            (last || (c.validation_interval() > 0 &&
                                      step % c.validation_interval() == 0));
      Losses validation;
      if (validate) {
        absl::StatusOr<Losses> v = Validate();
        if (!v.ok()) return v.status();
        validation = *v;
        has_validation = true;
        last_validation = validation;
      }
      if (last || validate || step % c.log_interval() == 0) {
        if (absl::Status s = LogLine(validate, validation); !s.ok()) return s;
      }
      if (last || (c.checkpoint_interval() > 0 &&
                   step % c.checkpoint_interval() == 0)) {
        if (absl::Status s = SaveCheckpoint(); !s.ok()) return s;
      }
    }
    return all;
  }

  absl::StatusOr<nn::NetworkWeights> ExportWeights() {
    proto::NetworkFile header = state.header();
    proto::Provenance* p = header.mutable_provenance();
    p->set_generation(state.generation());
    p->set_training_steps(state.step());
    p->set_training_positions(state.training_positions());
    p->set_parent_net(state.parent_net());
    p->set_created(UtcTimestamp());
    p->set_tool("volkhv train");
    p->set_note(Cat("trained ", state.step() - state.call_start_step(),
                    " steps of ", config().batch_size(), " positions from ",
                    dataset->stats().window_positions,
                    " positions of the replay window of ",
                    options.records_dir));
    try {
      if (!ModuleFinite()) {
        return absl::DataLossError(
            Cat("export: the net's weights are not finite (step ", state.step(),
                ")"));
      }
      return nn::WeightsFromModule(*module, header);
    } catch (const c10::Error& e) {
      return TorchError("export", e);
    }
  }
};

Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trainer::~Trainer() = default;

absl::StatusOr<std::unique_ptr<Trainer>> Trainer::Create(
    TrainerOptions options) {
  if (absl::Status s = ValidateTrainingConfig(options.config); !s.ok()) {
    return s;
  }
  if (!options.warn) options.warn = DefaultWarn;
  KeepLargeBlocksInTheHeap();
  auto impl = std::make_unique<Impl>();
  Impl& t = *impl;
  if (options.distributed.enabled()) {
    if (absl::Status s = CheckDistributedOptions(options.distributed);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckBatchSplit(options.config.batch_size(),
                                         options.distributed.world_size);
        !s.ok()) {
      return s;
    }
    absl::StatusOr<std::unique_ptr<ProcessGroup>> group =
        ProcessGroup::Connect(options.distributed);
    if (!group.ok()) return group.status();
    t.group = *std::move(group);
  }
  t.options = options;
  absl::StatusOr<torch::Device> device = ParseDevice(options.device);
  if (!device.ok()) return device.status();
  t.device = *device;
  t.SetThreads();

  absl::StatusOr<nn::NetworkWeights> net =
      nn::ReadNetworkWeights(options.net_in);
  if (!net.ok()) return net.status();
  const std::string& game_name = net->header.game();
  InputShape input_shape;
  {
    absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(game_name);
    if (!game.ok()) return game.status();
    absl::StatusOr<std::unique_ptr<Encoder>> encoder =
        MakeEncoder((*game)->Info(), nn::EncoderOptionsOf(*net));
    if (!encoder.ok()) return encoder.status();
    if (absl::Status s = nn::CheckNetworkFits(*net, game_name, **encoder);
        !s.ok()) {
      return absl::Status(s.code(), Cat(options.net_in, ": ", s.message()));
    }
    input_shape = (*encoder)->Shape();
  }
  const int generation = options.generation >= 0
                             ? options.generation
                             : net->header.provenance().generation() + 1;
  try {
    t.module = nn::Network(net->architecture());
    if (absl::Status s = nn::LoadModuleWeights(*net, t.module.get()); !s.ok()) {
      return s;
    }
    t.module->to(t.device);
    t.module->train();
  } catch (const c10::Error& e) {
    return TorchError("network", e);
  }

  proto::TrainerState& state = t.state;
  // Across processes rank 0 reads the checkpoint for every rank.
  std::string checkpoint_bytes;
  bool have_checkpoint = false;
  if (t.group) {
    absl::StatusOr<std::string> shared = t.ShareCheckpoint();
    if (!shared.ok()) return shared.status();
    checkpoint_bytes = *std::move(shared);
    have_checkpoint = !checkpoint_bytes.empty();
  } else {
    have_checkpoint = !options.checkpoint.empty() &&
                      std::filesystem::exists(options.checkpoint);
    if (have_checkpoint) {
      absl::StatusOr<std::string> bytes = t.ReadCheckpointFile();
      if (!bytes.ok()) return bytes.status();
      checkpoint_bytes = *std::move(bytes);
    }
  }
  bool load_optimizer = false;
  bool new_call = !have_checkpoint;  // not the resume of an earlier call
  std::unique_ptr<torch::serialize::InputArchive> archive;
  if (have_checkpoint) {
    absl::StatusOr<std::unique_ptr<torch::serialize::InputArchive>> read =
        t.ParseCheckpoint(checkpoint_bytes, &state);
    checkpoint_bytes.clear();
    if (!read.ok()) return read.status();
    archive = *std::move(read);
    if (!google::protobuf::util::MessageDifferencer::Equivalent(
            state.header().architecture(), net->architecture()) ||
        state.header().game() != game_name) {
      return absl::FailedPreconditionError(
          Cat(options.checkpoint, ": the checkpoint trains a ",
              state.header().game(), " net of ",
              nn::ArchitectureSummary(state.header().architecture()), "; ",
              options.net_in, " is a ", game_name, " net of ",
              nn::ArchitectureSummary(net->architecture())));
    }
    try {
      torch::serialize::InputArchive module_archive;
      archive->read("module", module_archive);
      t.module->load(module_archive);
      if (!t.ModuleFinite()) {
        return absl::DataLossError(
            Cat(options.checkpoint,
                ": the checkpoint's weights are not finite; delete it to "
                "start the call again from ",
                options.net_in));
      }
    } catch (const c10::Error& e) {
      return TorchError(Cat(options.checkpoint, ": module"), e);
    }
    t.resumed = true;
    const bool unfinished = state.step() < state.target_step();
    new_call = !unfinished && state.generation() != generation;
    if (unfinished) {
      // Continue the interrupted call exactly (mixed_precision is how it
      // computes, taken from the options below).
      proto::TrainingConfig given = options.config;
      given.set_mixed_precision(state.config().mixed_precision());
      if (!google::protobuf::util::MessageDifferencer::Equivalent(
              state.config(), given)) {
        options.warn(
            "note: resuming an unfinished call with its checkpoint's "
            "training configuration");
      }
      load_optimizer = true;
    } else if (state.generation() == generation) {
      // The call for this generation is done: nothing more to train.
      load_optimizer = true;
    } else {
      // A new call continuing from the checkpoint.
      load_optimizer = state.config().optimizer() == options.config.optimizer();
      if (!load_optimizer) {
        options.warn(
            "note: the optimiser differs from the checkpoint's; starting "
            "its state afresh");
      }
      *state.mutable_config() = options.config;
      state.set_call_start_step(state.step());
      state.set_target_step(state.step() + options.config.steps());
      state.set_generation(generation);
      state.set_parent_net(options.net_in);
      *state.mutable_header() = net->header;
      state.clear_record_files();
      state.clear_pending_sums();
      state.set_pending_steps(0);
    }
  } else {
    const proto::Provenance& p = net->header.provenance();
    state.set_step(p.training_steps());
    state.set_call_start_step(p.training_steps());
    state.set_target_step(p.training_steps() + options.config.steps());
    state.set_training_positions(p.training_positions());
    *state.mutable_config() = options.config;
    *state.mutable_header() = net->header;
    state.set_parent_net(options.net_in);
    state.set_generation(generation);
  }
  state.mutable_header()->clear_tensors();
  state.mutable_header()->clear_checksum();
  state.set_records_dir(options.records_dir);
  state.mutable_config()->set_mixed_precision(options.config.mixed_precision());
  if (absl::Status s = t.CheckMixedPrecision(input_shape); !s.ok()) return s;
  if (t.group) {
    if (absl::Status s =
            CheckBatchSplit(state.config().batch_size(), t.world_size());
        !s.ok()) {
      return s;
    }
    if (absl::Status s = t.ShareModule(); !s.ok()) return s;
  }

  if (absl::Status s = t.MakeOptimizer(); !s.ok()) return s;
  if (load_optimizer) {
    try {
      torch::serialize::InputArchive optimizer_archive;
      archive->read("optimizer", optimizer_archive);
      t.optimizer->load(optimizer_archive);
    } catch (const c10::Error& e) {
      return TorchError(Cat(options.checkpoint, ": optimiser state"), e);
    }
  }

  // The CSV lines written after the checkpoint of an interrupted call.
  if (have_checkpoint && t.writes_files() &&
      state.step() < state.target_step() && !options.log_csv.empty() &&
      state.log_path() == options.log_csv &&
      FileSize(options.log_csv) > state.log_bytes()) {
    std::error_code error;
    std::filesystem::resize_file(options.log_csv, state.log_bytes(), error);
    if (error) {
      return absl::UnavailableError(Cat(
          options.log_csv,
          ": cannot cut the lines after the checkpoint: ", error.message()));
    }
  }

  // The records.
  const Clock::time_point load_start = Clock::now();
  DatasetOptions data_options;
  data_options.records_dir = options.records_dir;
  // An unfinished call reads exactly the files it read before; a finished
  // one (nothing to train) reads the directory as it is now, for validation.
  if (state.step() < state.target_step()) {
    data_options.record_files.assign(state.record_files().begin(),
                                     state.record_files().end());
  }
  data_options.game = game_name;
  data_options.encoder_options = nn::EncoderOptionsOf(*net);
  data_options.config = state.config();
  absl::StatusOr<std::unique_ptr<Dataset>> dataset =
      Dataset::Load(data_options, options.warn);
  if (!dataset.ok()) return dataset.status();
  t.dataset = *std::move(dataset);
  t.load_seconds = SecondsSince(load_start);
  state.clear_record_files();
  for (const std::string& f : t.dataset->record_files()) {
    state.add_record_files(f);
  }
  if (t.dataset->train().empty() && state.step() < state.target_step()) {
    const DatasetStats& d = t.dataset->stats();
    return absl::FailedPreconditionError(
        Cat(options.records_dir, ": no training positions (", d.files_read,
            " record files, ", d.games_read, " games read; ", d.games_other,
            " of other games, ", d.games_undecided, " without a result, ",
            d.games_invalid, " invalid; ", d.validation_positions,
            " validation positions)"));
  }
  if (t.group) {
    if (absl::Status s = t.AgreeWithRankZero(data_options); !s.ok()) {
      return s;
    }
    state.clear_record_files();
    for (const std::string& f : t.dataset->record_files()) {
      state.add_record_files(f);
    }
    t.module->SetTrainingBatchNorm(SyncBatchNorm(t.group.get()));
  }
  if (t.writes_files()) {
    t.validation_sample = t.dataset->ValidationSample(
        state.config().seed(), state.config().validation_positions());
  }
  t.first_step = state.step();
  // A new call checkpoints its start (with the log's length and the record
  // files it reads), so that a call killed or failing before its first
  // interval checkpoint resumes from here and writes no log line twice.
  if (new_call && !options.checkpoint.empty() &&
      state.step() < state.target_step()) {
    if (absl::Status s = t.SaveCheckpoint(); !s.ok()) return s;
  }
  return std::unique_ptr<Trainer>(new Trainer(std::move(impl)));
}

absl::StatusOr<std::vector<Losses>> Trainer::Train(int64_t max_steps) {
  return impl_->Train(max_steps);
}

absl::StatusOr<TrainSummary> Trainer::Run(const std::string& net_out) {
  Impl& t = *impl_;
  absl::StatusOr<std::vector<Losses>> trained =
      t.Train(t.state.target_step() - t.state.step());
  if (!trained.ok()) return trained.status();
  if (!t.has_validation) {
    absl::StatusOr<Losses> v = t.Validate();
    if (!v.ok()) return v.status();
    t.has_validation = v->positions > 0;
    t.last_validation = *v;
  }
  if (absl::Status s = Export(net_out); !s.ok()) return s;
  TrainSummary summary;
  summary.resumed = t.resumed;
  summary.first_step = t.first_step;
  summary.step = t.state.step();
  summary.steps_run = t.steps_run;
  summary.positions_trained = t.positions_run;
  summary.load_seconds = t.load_seconds;
  summary.train_seconds = t.train_seconds;
  summary.load_wait_seconds = t.WaitSeconds();
  if (t.train_seconds > 0) {
    summary.load_wait_share = summary.load_wait_seconds / t.train_seconds;
    summary.samples_per_second = t.positions_run / t.train_seconds;
  }
  summary.last_train = t.last_train;
  summary.has_validation = t.has_validation;
  summary.validation = t.last_validation;
  summary.data = t.dataset->stats();
  summary.generation = t.state.generation();
  return summary;
}

absl::StatusOr<Losses> Trainer::Validate() { return impl_->Validate(); }

absl::Status Trainer::SaveCheckpoint() { return impl_->SaveCheckpoint(); }

absl::StatusOr<nn::NetworkWeights> Trainer::ExportWeights() {
  return impl_->ExportWeights();
}

absl::Status Trainer::Export(const std::string& path) {
  if (!impl_->writes_files()) return absl::OkStatus();
  absl::StatusOr<nn::NetworkWeights> weights = ExportWeights();
  if (!weights.ok()) return weights.status();
  return nn::WriteNetworkWeights(*weights, path);
}

bool Trainer::resumed() const { return impl_->resumed; }
int64_t Trainer::step() const { return impl_->state.step(); }
int64_t Trainer::target_step() const { return impl_->state.target_step(); }
const proto::TrainingConfig& Trainer::config() const { return impl_->config(); }
const DatasetStats& Trainer::data_stats() const {
  return impl_->dataset->stats();
}
int Trainer::generation() const { return impl_->state.generation(); }
int Trainer::rank() const { return impl_->rank(); }
int Trainer::world_size() const { return impl_->world_size(); }

}  // namespace volkhv::training
