// Between the LibTorch module (nn/network.h) and weight files
// (nn/weights_file.h). This header does not include LibTorch.
//
// Thread-safety: not thread-safe on the same module; RandomNetworkWeights
// reseeds LibTorch's global generator.
#ifndef VOLKHV_NN_TORCH_WEIGHTS_H_
#define VOLKHV_NN_TORCH_WEIGHTS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nn/weights_file.h"
#include "proto/network.pb.h"

namespace volkhv::nn {

class NetworkImpl;

// The module's tensors (copied to the CPU) under `header` (game, versions,
// provenance; its architecture must equal the module's).
absl::StatusOr<NetworkWeights> WeightsFromModule(
    NetworkImpl& net, const proto::NetworkFile& header);

// Copies valid weights into a module of the same architecture.
absl::Status LoadModuleWeights(const NetworkWeights& weights, NetworkImpl* net);

// A freshly initialised network (LibTorch's default initialisation after
// torch::manual_seed(seed)) under `header`, whose architecture must be
// valid with its geometry.
absl::StatusOr<NetworkWeights> RandomNetworkWeights(
    const proto::NetworkFile& header, uint64_t seed);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_TORCH_WEIGHTS_H_
