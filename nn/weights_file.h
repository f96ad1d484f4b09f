// Network weight files (proto/network.proto, NetworkFile) without LibTorch:
// reading, validating and writing them, the tensor names and shapes an
// architecture requires, and its parameter and FLOP counts. Every inference
// backend (LibTorch, Eigen) and the trainer go through this file.
//
// The network (nn/network.h has the LibTorch module; any backend must
// compute the same function), for input planes P, board H x W, F filters:
//
//   input:  conv3x3(P->F, no bias) "input.conv", BN "input.bn", ReLU
//   blocks.i (i < blocks):
//           conv3x3(F->F) "conv1", BN "bn1", ReLU, conv3x3(F->F) "conv2",
//           BN "bn2", then squeeze-excitation (se_ratio > 0, S = F/se_ratio):
//           g = mean over the board; h = ReLU(Linear "se.fc1"(F->S)(g));
//           [gamma | beta] = Linear "se.fc2"(S->2F)(h);
//           y = sigmoid(gamma) * y + beta (per channel);
//           out = ReLU(y + block input)
//   policy: conv3x3(F->Ph, no bias) "policy.conv1", BN "policy.bn", ReLU,
//           conv1x1(Ph->C, bias) "policy.conv2": C x H x W logits, flattened
//           as channel * H * W + rank * W + file
//   value:  conv1x1(F->Vf, no bias) "value.conv", BN "value.bn", ReLU,
//           flatten (Vf x H x W, row-major), Linear "value.fc1"(->hidden),
//           ReLU, Linear "value.fc2"(hidden->3): win, draw, loss logits of
//           the side to move (softmax in the backend)
//   moves_left (only with architecture.moves_left_head_filters Mf > 0):
//           conv1x1(F->Mf, no bias) "moves_left.conv", BN "moves_left.bn",
//           ReLU, flatten (Mf x H x W, row-major), Linear
//           "moves_left.fc1"(->Mh = moves_left_hidden), ReLU, Linear
//           "moves_left.fc2"(Mh->1) = z; the output is
//           kMovesLeftScale * softplus(z), softplus(z) = log(1 + e^z): the
//           expected plies from the position to the game's end, >= 0
//
// All convolutions have stride 1 and "same" zero padding. BN is
// y = (x - running_mean) / sqrt(running_var + 1e-5) * weight + bias.
// Tensor names are the layer name plus ".weight", ".bias", ".running_mean",
// ".running_var"; conv weights are [out, in, kh, kw], linear weights
// [out, in].
//
// Thread-safety: free functions with no shared state; safe to call
// concurrently on distinct objects.
#ifndef VOLKHV_NN_WEIGHTS_FILE_H_
#define VOLKHV_NN_WEIGHTS_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/game/encoder.h"
#include "proto/network.pb.h"

namespace volkhv::nn {

// NetworkFile.format_version written by this build (and the only one read).
inline constexpr int kNetworkFileFormatVersion = 1;
// Batch norm epsilon of every BN layer.
inline constexpr float kBatchNormEpsilon = 1e-5f;
// Plies per unit of the moves-left head's softplus: its output is
// kMovesLeftScale * softplus(z), so that z of order 1 covers games of tens
// to hundreds of plies (lc0 scales its moves-left loss by 20 too).
inline constexpr float kMovesLeftScale = 20.0f;

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  int64_t NumElements() const;
};

struct TensorData {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;  // row-major
};

// A weight file in memory: its header and the decoded tensors.
struct NetworkWeights {
  // Everything but the tensors (header.tensors() is empty; header.checksum()
  // unset).
  proto::NetworkFile header;
  // In NetworkTensorSpecs(header.architecture()) order.
  std::vector<TensorData> tensors;

  const proto::Architecture& architecture() const {
    return header.architecture();
  }
  // nullptr when there is no such tensor.
  const TensorData* Find(std::string_view name) const;
};

// "[64, 112, 3, 3]".
std::string ShapeString(const std::vector<int64_t>& shape);

// The effective number of policy-head filters (0 in the proto = filters).
int PolicyHeadFilters(const proto::Architecture& arch);
// Squeeze-excitation bottleneck channels (0 = no SE).
int SeChannels(const proto::Architecture& arch);
// Whether the net has the moves-left head (moves_left_head_filters > 0).
bool HasMovesLeftHead(const proto::Architecture& arch);

// The most values (weights, biases, BN statistics) a net may hold: 1 GB of
// float32, half of protobuf's 2 GB message limit.
inline constexpr int64_t kMaxNetworkValues = int64_t{1} << 28;
// The largest network file read: those values and room for the rest.
inline constexpr int64_t kMaxNetworkFileBytes =
    kMaxNetworkValues * 4 + (int64_t{16} << 20);

// Checks every field (the tower and, with require_geometry, the input and
// output geometry, and the net's size against kMaxNetworkValues) for
// presence and range. Errors name the field:
// "architecture.filters: must be in [1, 1024], got 0".
absl::Status ValidateArchitecture(const proto::Architecture& arch,
                                  bool require_geometry);

// The tensors of a valid architecture, in a fixed order.
std::vector<TensorSpec> NetworkTensorSpecs(const proto::Architecture& arch);
// Learned parameters (BN running statistics not counted).
int64_t ParameterCount(const proto::Architecture& arch);
// Floating-point operations to evaluate one position: 2 per multiply-add of
// every convolution and linear layer (BN folded into the convolutions;
// activations, pooling and softmax not counted).
int64_t FlopsPerPosition(const proto::Architecture& arch);

// One line: "6 blocks x 64 filters, SE ratio 4, policy head 64 -> 80,
// value head 32 -> 128 -> 3", and with a moves-left head ", moves-left
// head 8 -> 128 -> 1".
std::string ArchitectureSummary(const proto::Architecture& arch);

// File bytes <-> weights. Parse checks the checksum, the format version, the
// architecture and that the tensors are exactly the required ones with the
// right shapes, sizes and finite values; every error is one line naming what
// is wrong (without a path; ReadNetworkWeights prefixes it).
absl::StatusOr<NetworkWeights> ParseNetworkWeights(std::string_view bytes);
// Fails if the weights are not complete and valid (as Parse would).
absl::StatusOr<std::string> SerializeNetworkWeights(
    const NetworkWeights& weights);

// Reads a file; errors start with the path.
absl::StatusOr<NetworkWeights> ReadNetworkWeights(const std::string& path);
// Writes atomically: a temporary file in the same directory, fsync, rename.
absl::Status WriteNetworkWeights(const NetworkWeights& weights,
                                 const std::string& path);

// The encoder options the net was built with.
EncoderOptions EncoderOptionsOf(const NetworkWeights& weights);
// Whether the net fits `game` as encoded by `encoder` (the encoder of this
// build): the game name, the input format version and the geometry. Errors
// say what differs: "net is for game A, not B".
absl::Status CheckNetworkFits(const NetworkWeights& weights,
                              std::string_view game, const Encoder& encoder);

// Fills the geometry of `arch` from an encoder.
void SetGeometry(const Encoder& encoder, proto::Architecture* arch);

// The header of a generation-0 net of `config` for a game: game, variant
// (e.g. "prince_max_steps=3"; "" for the standard rules), input format and
// encoder settings, every architecture field explicit, provenance
// (generation 0, seed, tool, note, creation time). Errors: an invalid
// config or game. Thread-safe.
absl::StatusOr<proto::NetworkFile> NewNetworkHeader(
    const GameInfo& game, std::string_view variant,
    const proto::NetworkConfig& config, uint64_t seed, std::string_view tool,
    std::string_view note);

// Text-format NetworkConfig (configs/net-*.textproto). Unknown fields, syntax
// errors and out-of-range values are errors naming the field (and line).
absl::StatusOr<proto::NetworkConfig> ParseNetworkConfig(
    std::string_view text, std::string_view source_name);
absl::StatusOr<proto::NetworkConfig> ReadNetworkConfig(const std::string& path);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_WEIGHTS_FILE_H_
