#include "nn/torch_weights.h"

#include <cstring>
#include <map>
#include <string>

#include "engine/util/strings.h"
#include "google/protobuf/util/message_differencer.h"
#include "nn/network.h"

namespace volkhv::nn {
namespace {

// Every tensor of the module by weight-file name (BN's step counters left
// out).
std::map<std::string, torch::Tensor> ModuleTensors(NetworkImpl& net) {
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& item : net.named_parameters()) {
    tensors[item.key()] = item.value();
  }
  for (const auto& item : net.named_buffers()) {
    if (item.key().ends_with("num_batches_tracked")) continue;
    tensors[item.key()] = item.value();
  }
  return tensors;
}

absl::Status CheckSameArchitecture(const proto::Architecture& a,
                                   const proto::Architecture& b) {
  if (!google::protobuf::util::MessageDifferencer::Equivalent(a, b)) {
    return absl::InvalidArgumentError(Cat("architecture differs: module ",
                                          ArchitectureSummary(a), "; weights ",
                                          ArchitectureSummary(b)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NetworkWeights> WeightsFromModule(
    NetworkImpl& net, const proto::NetworkFile& header) {
  if (absl::Status s =
          CheckSameArchitecture(net.architecture(), header.architecture());
      !s.ok()) {
    return s;
  }
  std::map<std::string, torch::Tensor> tensors = ModuleTensors(net);
  NetworkWeights weights;
  weights.header = header;
  weights.header.clear_tensors();
  weights.header.clear_checksum();
  torch::NoGradGuard no_grad;
  for (const TensorSpec& spec : NetworkTensorSpecs(header.architecture())) {
    auto it = tensors.find(spec.name);
    if (it == tensors.end()) {
      return absl::InternalError(
          Cat("the module has no tensor '", spec.name, "'"));
    }
    torch::Tensor t =
        it->second.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    TensorData data;
    data.name = spec.name;
    data.shape.assign(t.sizes().begin(), t.sizes().end());
    if (data.shape != spec.shape) {
      return absl::InternalError(Cat("module tensor '", spec.name,
                                     "' has shape ", ShapeString(data.shape),
                                     ", expected ", ShapeString(spec.shape)));
    }
    data.values.resize(t.numel());
    std::memcpy(data.values.data(), t.data_ptr<float>(), t.numel() * 4);
    weights.tensors.push_back(std::move(data));
  }
  return weights;
}

absl::Status LoadModuleWeights(const NetworkWeights& weights,
                               NetworkImpl* net) {
  if (absl::Status s =
          CheckSameArchitecture(net->architecture(), weights.architecture());
      !s.ok()) {
    return s;
  }
  std::map<std::string, torch::Tensor> tensors = ModuleTensors(*net);
  torch::NoGradGuard no_grad;
  for (const TensorSpec& spec : NetworkTensorSpecs(weights.architecture())) {
    const TensorData* data = weights.Find(spec.name);
    auto it = tensors.find(spec.name);
    if (data == nullptr || data->shape != spec.shape ||
        static_cast<int64_t>(data->values.size()) != spec.NumElements()) {
      return absl::InvalidArgumentError(
          Cat("weights: missing or misshapen tensor '", spec.name, "'"));
    }
    if (it == tensors.end()) {
      return absl::InternalError(
          Cat("the module has no tensor '", spec.name, "'"));
    }
    torch::Tensor source = torch::from_blob(
        const_cast<float*>(data->values.data()), spec.shape, torch::kFloat32);
    it->second.copy_(source);
  }
  return absl::OkStatus();
}

absl::StatusOr<NetworkWeights> RandomNetworkWeights(
    const proto::NetworkFile& header, uint64_t seed) {
  if (absl::Status s = ValidateArchitecture(header.architecture(),
                                            /*require_geometry=*/true);
      !s.ok()) {
    return s;
  }
  torch::manual_seed(seed);
  Network net(header.architecture());
  return WeightsFromModule(*net, header);
}

}  // namespace volkhv::nn
