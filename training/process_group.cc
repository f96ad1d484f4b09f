#include "training/process_group.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "engine/util/strings.h"

#if VOLKHV_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif

namespace volkhv::training {
namespace {

// The first line of an exception's message (c10's carry a backtrace).
std::string FirstLine(const std::exception& e) {
  std::string what;
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    what = c10_error->what_without_backtrace();
  } else {
    what = e.what();
  }
  if (const size_t eol = what.find('\n'); eol != std::string::npos) {
    what.resize(eol);
  }
  return what;
}

[[maybe_unused]] bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

}  // namespace

#if VOLKHV_HAVE_GLOO

struct ProcessGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
};

absl::StatusOr<std::unique_ptr<ProcessGroup>> ProcessGroup::Connect(
    const DistributedOptions& options) {
  if (absl::Status s = CheckDistributedOptions(options); !s.ok()) return s;
  if (options.backend == "nccl") {
#if VOLKHV_TORCH_CUDA
    return absl::UnimplementedError(
        "--dist-backend nccl: this build does not include c10d's NCCL "
        "process group; use gloo (it reduces CUDA tensors through the host)");
#else
    return absl::FailedPreconditionError(
        "--dist-backend nccl: NCCL needs a CUDA build (docs/gpu.md); gloo is "
        "the CPU backend");
#endif
  }
  const std::string master = Cat(options.master_host, ":", options.master_port);
  const std::chrono::milliseconds timeout(
      static_cast<int64_t>(options.timeout_seconds) * 1000);
  auto impl = std::make_unique<Impl>();
  try {
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<uint16_t>(options.master_port);
    store_options.isServer = options.rank == 0;
    store_options.numWorkers = static_cast<size_t>(options.world_size);
    store_options.waitWorkers = true;
    store_options.timeout = timeout;
    impl->store =
        c10::make_intrusive<c10d::TCPStore>(options.master_host, store_options);
  } catch (const std::exception& e) {
    return absl::DeadlineExceededError(
        Cat("rank ", options.rank, " of ", options.world_size,
            ": the rendezvous at ", master, " did not complete within ",
            options.timeout_seconds, " s (--dist-timeout-s): ", FirstLine(e)));
  }
  try {
    auto gloo_options = c10d::ProcessGroupGloo::Options::create(timeout);
    if (const char* name = std::getenv("GLOO_SOCKET_IFNAME");
        name != nullptr && *name != '\0') {
      gloo_options->devices.push_back(
          c10d::ProcessGroupGloo::createDeviceForInterface(name));
    } else if (IsLoopback(options.master_host)) {
      gloo_options->devices.push_back(
          c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      gloo_options->devices.push_back(
          c10d::ProcessGroupGloo::createDefaultDevice());
    }
    gloo_options->threads = 1;
    impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(
        impl->store, options.rank, options.world_size, gloo_options);
  } catch (const std::exception& e) {
    const std::string why = FirstLine(e);
    const std::string lower = absl::AsciiStrToLower(why);
    if (absl::StrContains(lower, "timeout") ||
        absl::StrContains(lower, "timed out")) {
      return absl::DeadlineExceededError(
          Cat("rank ", options.rank, " of ", options.world_size,
              ": the rendezvous at ", master, " did not complete within ",
              options.timeout_seconds, " s (--dist-timeout-s): ", why));
    }
    return absl::UnavailableError(
        Cat("rank ", options.rank, " of ", options.world_size,
            ": cannot connect the Gloo process group (rendezvous at ", master,
            "): ", why));
  }
  return std::unique_ptr<ProcessGroup>(
      new ProcessGroup(options, std::move(impl)));
}

void ProcessGroup::AllReduceSumOrThrow(torch::Tensor& tensor) {
  std::vector<torch::Tensor> tensors = {tensor};
  impl_->group->allreduce(tensors)->wait();
}

void ProcessGroup::BroadcastOrThrow(torch::Tensor& tensor) {
  std::vector<torch::Tensor> tensors = {tensor};
  impl_->group->broadcast(tensors)->wait();
}

#else  // !VOLKHV_HAVE_GLOO

struct ProcessGroup::Impl {};

absl::StatusOr<std::unique_ptr<ProcessGroup>> ProcessGroup::Connect(
    const DistributedOptions& options) {
  if (absl::Status s = CheckDistributedOptions(options); !s.ok()) return s;
  return absl::FailedPreconditionError(
      "training across processes: this build has no Gloo (the headers of "
      "Debian's libgloo-dev were missing when it was configured); install "
      "libgloo-dev and configure again");
}

void ProcessGroup::AllReduceSumOrThrow(torch::Tensor&) {
  throw std::logic_error("no process group in this build");
}

void ProcessGroup::BroadcastOrThrow(torch::Tensor&) {
  throw std::logic_error("no process group in this build");
}

#endif  // VOLKHV_HAVE_GLOO

ProcessGroup::ProcessGroup(DistributedOptions options,
                           std::unique_ptr<Impl> impl)
    : options_(std::move(options)), impl_(std::move(impl)) {}

ProcessGroup::~ProcessGroup() = default;

absl::Status ProcessGroup::Failed(std::string_view what,
                                  std::string_view why) const {
  return absl::UnavailableError(Cat(
      what, " (rank ", options_.rank, " of ", options_.world_size, "): ", why,
      "; another rank failed or stopped, or the collective waited more "
      "than ",
      options_.timeout_seconds, " s (--dist-timeout-s)"));
}

absl::Status ProcessGroup::AllReduceSum(torch::Tensor& tensor,
                                        std::string_view what) {
  try {
    AllReduceSumOrThrow(tensor);
  } catch (const std::exception& e) {
    return Failed(what, FirstLine(e));
  }
  return absl::OkStatus();
}

absl::Status ProcessGroup::Broadcast(torch::Tensor& tensor,
                                     std::string_view what) {
  try {
    BroadcastOrThrow(tensor);
  } catch (const std::exception& e) {
    return Failed(what, FirstLine(e));
  }
  return absl::OkStatus();
}

absl::Status ProcessGroup::BroadcastBytes(std::string* bytes,
                                          std::string_view what) {
  constexpr int64_t kMaxBytes = int64_t{1} << 31;
  try {
    torch::Tensor size =
        torch::full({1}, static_cast<int64_t>(rank() == 0 ? bytes->size() : 0),
                    torch::kInt64);
    BroadcastOrThrow(size);
    const int64_t n = size.item<int64_t>();
    if (n < 0 || n > kMaxBytes) {
      return Failed(what, Cat("rank 0 announced ", n, " bytes"));
    }
    torch::Tensor data = torch::empty({n}, torch::kUInt8);
    if (rank() == 0 && n > 0) std::memcpy(data.data_ptr(), bytes->data(), n);
    if (n > 0) BroadcastOrThrow(data);
    if (rank() != 0) {
      bytes->assign(static_cast<const char*>(data.data_ptr()),
                    static_cast<size_t>(n));
    }
  } catch (const std::exception& e) {
    return Failed(what, FirstLine(e));
  }
  return absl::OkStatus();
}

}  // namespace volkhv::training
