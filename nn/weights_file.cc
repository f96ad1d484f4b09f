#include "nn/weights_file.h"

#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/games/games.h"
#include "engine/util/checked_file.h"
#include "engine/util/files.h"
#include "engine/util/strings.h"
#include "engine/util/time.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "nn/text_proto.h"

namespace volkhv::nn {
namespace {

uint32_t ByteSwap(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

// Little-endian float32 bytes <-> floats.
void DecodeFloats(const std::string& bytes, std::vector<float>* out) {
  out->resize(bytes.size() / 4);
  if (out->empty()) return;  // data() may be null: no memcpy from it
  std::memcpy(out->data(), bytes.data(), out->size() * 4);
  if constexpr (std::endian::native == std::endian::big) {
    for (float& f : *out) {
      uint32_t u;
      std::memcpy(&u, &f, 4);
      u = ByteSwap(u);
      std::memcpy(&f, &u, 4);
    }
  }
}

std::string EncodeFloats(const std::vector<float>& values) {
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  if constexpr (std::endian::native == std::endian::big) {
    for (size_t i = 0; i < values.size(); ++i) {
      uint32_t u;
      std::memcpy(&u, bytes.data() + 4 * i, 4);
      u = ByteSwap(u);
      std::memcpy(bytes.data() + 4 * i, &u, 4);
    }
  }
  return bytes;
}

absl::Status CheckRange(std::string_view field, int64_t value, int64_t min,
                        int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(Cat("architecture.", field,
                                        ": must be in [", min, ", ", max,
                                        "], got ", value));
}

void AddBatchNorm(const std::string& layer, int64_t channels,
                  std::vector<TensorSpec>* specs) {
  for (const char* part : {"weight", "bias", "running_mean", "running_var"}) {
    specs->push_back({Cat(layer, ".", part), {channels}});
  }
}

// Checks the tensors' names and shapes against the architecture.
absl::Status CheckTensors(
    const std::vector<TensorSpec>& specs,
    const std::map<std::string, const TensorData*>& by_name) {
  std::map<std::string, bool> expected;
  for (const TensorSpec& spec : specs) {
    expected[spec.name] = true;
    auto it = by_name.find(spec.name);
    if (it == by_name.end()) {
      return absl::InvalidArgumentError(Cat("missing tensor '", spec.name,
                                            "' (shape ",
                                            ShapeString(spec.shape), ")"));
    }
    const TensorData& t = *it->second;
    if (t.shape != spec.shape) {
      return absl::InvalidArgumentError(
          Cat("tensor '", spec.name, "' has shape ", ShapeString(t.shape),
              ", the architecture needs ", ShapeString(spec.shape)));
    }
    if (static_cast<int64_t>(t.values.size()) != spec.NumElements()) {
      return absl::InvalidArgumentError(
          Cat("tensor '", spec.name, "' holds ", t.values.size(),
              " values, its shape ", ShapeString(spec.shape), " needs ",
              spec.NumElements()));
    }
    for (size_t i = 0; i < t.values.size(); ++i) {
      if (!std::isfinite(t.values[i])) {
        return absl::InvalidArgumentError(Cat(
            "tensor '", spec.name, "' holds a non-finite value at index ", i));
      }
    }
  }
  for (const auto& [name, tensor] : by_name) {
    if (!expected.count(name)) {
      return absl::InvalidArgumentError(
          Cat("unexpected tensor '", name, "' (not part of the architecture)"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateHeader(const proto::NetworkFile& file) {
  if (!file.has_format_version()) {
    return absl::InvalidArgumentError("no format_version: not a network file");
  }
  if (file.format_version() != kNetworkFileFormatVersion) {
    return absl::InvalidArgumentError(
        Cat("network file format version ", file.format_version(),
            " is not supported (this build reads version ",
            kNetworkFileFormatVersion, ")"));
  }
  if (file.game().empty()) {
    return absl::InvalidArgumentError("the file names no game");
  }
  if (!file.has_input_format_version()) {
    return absl::InvalidArgumentError("the file has no input_format_version");
  }
  if (!file.has_architecture()) {
    return absl::InvalidArgumentError("the file has no architecture");
  }
  return ValidateArchitecture(file.architecture(), /*require_geometry=*/true);
}

}  // namespace

int64_t TensorSpec::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

const TensorData* NetworkWeights::Find(std::string_view name) const {
  for (const TensorData& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    Append(&out, i ? ", " : "", shape[i]);
  }
  return out + "]";
}

int PolicyHeadFilters(const proto::Architecture& arch) {
  return arch.policy_head_filters() > 0 ? arch.policy_head_filters()
                                        : arch.filters();
}

int SeChannels(const proto::Architecture& arch) {
  return arch.se_ratio() > 0 ? arch.filters() / arch.se_ratio() : 0;
}

bool HasMovesLeftHead(const proto::Architecture& arch) {
  return arch.moves_left_head_filters() > 0;
}

absl::Status ValidateArchitecture(const proto::Architecture& arch,
                                  bool require_geometry) {
  absl::Status s;
  s.Update(CheckRange("blocks", arch.blocks(), 0, 100));
  s.Update(CheckRange("filters", arch.filters(), 1, 1024));
  if (!s.ok()) return s;
  s.Update(CheckRange("se_ratio", arch.se_ratio(), 0, arch.filters()));
  s.Update(
      CheckRange("policy_head_filters", arch.policy_head_filters(), 0, 1024));
  s.Update(
      CheckRange("value_head_filters", arch.value_head_filters(), 1, 1024));
  s.Update(CheckRange("value_hidden", arch.value_hidden(), 1, 8192));
  s.Update(CheckRange("moves_left_head_filters", arch.moves_left_head_filters(),
                      0, 1024));
  if (HasMovesLeftHead(arch)) {
    s.Update(
        CheckRange("moves_left_hidden", arch.moves_left_hidden(), 1, 8192));
  }
  if (!s.ok()) return s;
  struct Geometry {
    const char* name;
    bool has;
    int value;
    int max;
  };
  const Geometry geometry[] = {
      {"input_planes", arch.has_input_planes(), arch.input_planes(), 4096},
      {"board_height", arch.has_board_height(), arch.board_height(), 64},
      {"board_width", arch.has_board_width(), arch.board_width(), 64},
      {"policy_channels", arch.has_policy_channels(), arch.policy_channels(),
       4096},
  };
  for (const Geometry& g : geometry) {
    if (require_geometry) {
      if (!g.has) {
        return absl::InvalidArgumentError(
            Cat("architecture.", g.name, ": missing"));
      }
      s.Update(CheckRange(g.name, g.value, 1, g.max));
      if (!s.ok()) return s;
    } else if (g.has) {
      return absl::InvalidArgumentError(
          Cat("architecture.", g.name,
              ": comes from the game's encoder; a config must not set it"));
    }
  }
  if (require_geometry) {
    // Every value the file stores (BN statistics too): the file must stay
    // well below protobuf's 2 GB message limit, and the net must fit memory.
    int64_t values = 0;
    for (const TensorSpec& spec : NetworkTensorSpecs(arch)) {
      values += spec.NumElements();
    }
    if (values > kMaxNetworkValues) {
      return absl::InvalidArgumentError(
          Cat("architecture: ", arch.blocks(), " blocks x ", arch.filters(),
              " filters need ", values, " weights, more than the limit of ",
              kMaxNetworkValues, " (", kMaxNetworkValues * 4 / (1 << 20),
              " MB of float32; a weight file must stay below 2 GB)"));
    }
  }
  return absl::OkStatus();
}

std::vector<TensorSpec> NetworkTensorSpecs(const proto::Architecture& arch) {
  const int64_t p = arch.input_planes(), f = arch.filters();
  const int64_t h = arch.board_height(), w = arch.board_width();
  const int64_t ph = PolicyHeadFilters(arch), c = arch.policy_channels();
  const int64_t vf = arch.value_head_filters(), vh = arch.value_hidden();
  const int64_t se = SeChannels(arch);
  std::vector<TensorSpec> specs;
  specs.push_back({"input.conv.weight", {f, p, 3, 3}});
  AddBatchNorm("input.bn", f, &specs);
  for (int b = 0; b < arch.blocks(); ++b) {
    const std::string block = Cat("blocks.", b, ".");
    specs.push_back({block + "conv1.weight", {f, f, 3, 3}});
    AddBatchNorm(block + "bn1", f, &specs);
    specs.push_back({block + "conv2.weight", {f, f, 3, 3}});
    AddBatchNorm(block + "bn2", f, &specs);
    if (se > 0) {
      specs.push_back({block + "se.fc1.weight", {se, f}});
      specs.push_back({block + "se.fc1.bias", {se}});
      specs.push_back({block + "se.fc2.weight", {2 * f, se}});
      specs.push_back({block + "se.fc2.bias", {2 * f}});
    }
  }
  specs.push_back({"policy.conv1.weight", {ph, f, 3, 3}});
  AddBatchNorm("policy.bn", ph, &specs);
  specs.push_back({"policy.conv2.weight", {c, ph, 1, 1}});
  specs.push_back({"policy.conv2.bias", {c}});
  specs.push_back({"value.conv.weight", {vf, f, 1, 1}});
  AddBatchNorm("value.bn", vf, &specs);
  specs.push_back({"value.fc1.weight", {vh, vf * h * w}});
  specs.push_back({"value.fc1.bias", {vh}});
  specs.push_back({"value.fc2.weight", {3, vh}});
  specs.push_back({"value.fc2.bias", {3}});
  if (HasMovesLeftHead(arch)) {
    const int64_t mf = arch.moves_left_head_filters();
    const int64_t mh = arch.moves_left_hidden();
    specs.push_back({"moves_left.conv.weight", {mf, f, 1, 1}});
    AddBatchNorm("moves_left.bn", mf, &specs);
    specs.push_back({"moves_left.fc1.weight", {mh, mf * h * w}});
    specs.push_back({"moves_left.fc1.bias", {mh}});
    specs.push_back({"moves_left.fc2.weight", {1, mh}});
    specs.push_back({"moves_left.fc2.bias", {1}});
  }
  return specs;
}

int64_t ParameterCount(const proto::Architecture& arch) {
  int64_t n = 0;
  for (const TensorSpec& spec : NetworkTensorSpecs(arch)) {
    const std::string_view name = spec.name;
    if (name.ends_with(".running_mean") || name.ends_with(".running_var")) {
      continue;
    }
    n += spec.NumElements();
  }
  return n;
}

int64_t FlopsPerPosition(const proto::Architecture& arch) {
  const int64_t p = arch.input_planes(), f = arch.filters();
  const int64_t hw = int64_t{arch.board_height()} * arch.board_width();
  const int64_t ph = PolicyHeadFilters(arch), c = arch.policy_channels();
  const int64_t vf = arch.value_head_filters(), vh = arch.value_hidden();
  const int64_t se = SeChannels(arch);
  int64_t macs = f * p * 9 * hw;  // input conv
  macs += arch.blocks() * (2 * f * f * 9 * hw + se * f + 2 * f * se);
  macs += ph * f * 9 * hw + c * ph * hw;        // policy head
  macs += vf * f * hw + vh * vf * hw + 3 * vh;  // value head
  if (HasMovesLeftHead(arch)) {
    const int64_t mf = arch.moves_left_head_filters();
    const int64_t mh = arch.moves_left_hidden();
    macs += mf * f * hw + mh * mf * hw + mh;  // moves-left head
  }
  return 2 * macs;
}

std::string ArchitectureSummary(const proto::Architecture& arch) {
  std::string out =
      Cat(arch.blocks(), " blocks x ", arch.filters(), " filters, ");
  if (arch.se_ratio() > 0) {
    Append(&out, "SE ratio ", arch.se_ratio(), " (", SeChannels(arch),
           " channels)");
  } else {
    out += "no SE";
  }
  Append(&out, ", policy head ", PolicyHeadFilters(arch), " -> ",
         arch.policy_channels(), " planes, value head ",
         arch.value_head_filters(), " -> ", arch.value_hidden(), " -> 3");
  if (HasMovesLeftHead(arch)) {
    Append(&out, ", moves-left head ", arch.moves_left_head_filters(), " -> ",
           arch.moves_left_hidden(), " -> 1");
  }
  return out;
}

absl::StatusOr<NetworkWeights> ParseNetworkWeights(std::string_view bytes) {
  absl::StatusOr<std::string_view> checked = CheckedBody(bytes, "network file");
  if (!checked.ok()) return checked.status();
  const std::string_view body = *checked;
  proto::NetworkFile file;
  if (!file.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return absl::DataLossError("not a network file (protobuf parse error)");
  }
  if (absl::Status s = ValidateHeader(file); !s.ok()) return s;

  // Decode the tensors, then check them against the architecture.
  std::vector<TensorData> decoded(file.tensors_size());
  std::map<std::string, const TensorData*> by_name;
  std::map<std::string, int> index_of;
  for (int i = 0; i < file.tensors_size(); ++i) {
    const proto::Tensor& t = file.tensors(i);
    if (t.data_type() != proto::Tensor::FLOAT32) {
      return absl::InvalidArgumentError(
          Cat("tensor '", t.name(), "' is not float32"));
    }
    TensorData& d = decoded[i];
    d.name = t.name();
    d.shape.assign(t.shape().begin(), t.shape().end());
    int64_t n = 1;
    for (int64_t dim : d.shape) {
      constexpr int64_t kMaxElements = int64_t{1} << 31;
      if (dim < 0 || dim > kMaxElements || n * dim > kMaxElements) {
        return absl::InvalidArgumentError(Cat(
            "tensor '", d.name, "' has a bad shape ", ShapeString(d.shape)));
      }
      n *= dim;
    }
    if (static_cast<int64_t>(t.data().size()) != 4 * n) {
      return absl::InvalidArgumentError(
          Cat("tensor '", d.name, "' has ", t.data().size(),
              " bytes of data, its shape ", ShapeString(d.shape), " needs ",
              4 * n));
    }
    DecodeFloats(t.data(), &d.values);
    if (!by_name.emplace(d.name, &d).second) {
      return absl::InvalidArgumentError(
          Cat("tensor '", d.name, "' appears twice"));
    }
    index_of[d.name] = i;
  }
  const std::vector<TensorSpec> specs = NetworkTensorSpecs(file.architecture());
  if (absl::Status s = CheckTensors(specs, by_name); !s.ok()) {
    return s;
  }

  NetworkWeights weights;
  file.clear_tensors();
  file.clear_checksum();
  weights.header = std::move(file);
  weights.tensors.reserve(specs.size());
  for (const TensorSpec& spec : specs) {
    weights.tensors.push_back(std::move(decoded[index_of.at(spec.name)]));
  }
  return weights;
}

absl::StatusOr<std::string> SerializeNetworkWeights(
    const NetworkWeights& weights) {
  proto::NetworkFile file = weights.header;
  file.set_format_version(kNetworkFileFormatVersion);
  file.clear_tensors();
  file.clear_checksum();
  if (absl::Status s = ValidateHeader(file); !s.ok()) return s;
  std::map<std::string, const TensorData*> by_name;
  for (const TensorData& t : weights.tensors) by_name[t.name] = &t;
  if (by_name.size() != weights.tensors.size()) {
    return absl::InvalidArgumentError("a tensor name appears twice");
  }
  if (absl::Status s =
          CheckTensors(NetworkTensorSpecs(file.architecture()), by_name);
      !s.ok()) {
    return s;
  }
  for (const TensorData& t : weights.tensors) {
    proto::Tensor* out = file.add_tensors();
    out->set_name(t.name);
    for (int64_t d : t.shape) out->add_shape(d);
    out->set_data_type(proto::Tensor::FLOAT32);
    out->set_data(EncodeFloats(t.values));
  }
  std::string bytes;
  if (!file.SerializeToString(&bytes)) {
    return absl::InternalError("cannot serialize the network (over 2 GB?)");
  }
  return WithChecksum(std::move(bytes));
}

absl::StatusOr<NetworkWeights> ReadNetworkWeights(const std::string& path) {
  absl::StatusOr<std::string> bytes =
      ReadWholeFile(path, kMaxNetworkFileBytes, "network file");
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<NetworkWeights> weights = ParseNetworkWeights(*bytes);
  if (!weights.ok()) {
    return absl::Status(weights.status().code(),
                        Cat(path, ": ", weights.status().message()));
  }
  return weights;
}

absl::Status WriteNetworkWeights(const NetworkWeights& weights,
                                 const std::string& path) {
  absl::StatusOr<std::string> bytes = SerializeNetworkWeights(weights);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        Cat(path, ": ", bytes.status().message()));
  }
  return WriteFileAtomically(path, *bytes);
}

EncoderOptions EncoderOptionsOf(const NetworkWeights& weights) {
  EncoderOptions options;
  if (weights.header.encoder().has_stack_layers()) {
    options.stack_layers = weights.header.encoder().stack_layers();
  }
  return options;
}

absl::Status CheckNetworkFits(const NetworkWeights& weights,
                              std::string_view game, const Encoder& encoder) {
  const proto::NetworkFile& h = weights.header;
  if (h.game() != game) {
    return absl::InvalidArgumentError(
        Cat("net is for game ", h.game(), ", not ", game));
  }
  if (h.input_format_version() != encoder.FormatVersion()) {
    return absl::InvalidArgumentError(
        Cat("net was built for input format version ", h.input_format_version(),
            " of ", game, "; this build encodes version ",
            encoder.FormatVersion(), " (initialise or train a new net)"));
  }
  const proto::Architecture& a = h.architecture();
  const InputShape shape = encoder.Shape();
  if (a.input_planes() != shape.planes || a.board_height() != shape.height ||
      a.board_width() != shape.width) {
    return absl::InvalidArgumentError(
        Cat("net reads ", a.input_planes(), " planes of ", a.board_height(),
            "x", a.board_width(), "; the encoder writes ", shape.planes,
            " planes of ", shape.height, "x", shape.width));
  }
  if (a.policy_channels() != encoder.PolicyChannels()) {
    return absl::InvalidArgumentError(
        Cat("net has ", a.policy_channels(),
            " policy planes; the encoder's policy map has ",
            encoder.PolicyChannels()));
  }
  return absl::OkStatus();
}

void SetGeometry(const Encoder& encoder, proto::Architecture* arch) {
  const InputShape shape = encoder.Shape();
  arch->set_input_planes(shape.planes);
  arch->set_board_height(shape.height);
  arch->set_board_width(shape.width);
  arch->set_policy_channels(encoder.PolicyChannels());
}

absl::StatusOr<proto::NetworkConfig> ParseNetworkConfig(
    std::string_view text, std::string_view source_name) {
  proto::NetworkConfig config;
  if (absl::Status s = MergeTextProto(text, source_name, &config); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateArchitecture(config.architecture(),
                                            /*require_geometry=*/false);
      !s.ok()) {
    return absl::InvalidArgumentError(Cat(source_name, ": ", s.message()));
  }
  if (config.has_stack_layers() &&
      (config.stack_layers() < 1 || config.stack_layers() > 32)) {
    return absl::InvalidArgumentError(
        Cat(source_name, ": stack_layers: must be in [1, 32], got ",
            config.stack_layers()));
  }
  return config;
}

absl::StatusOr<proto::NetworkConfig> ReadNetworkConfig(
    const std::string& path) {
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseNetworkConfig(*text, path);
}

absl::StatusOr<proto::NetworkFile> NewNetworkHeader(
    const GameInfo& game, std::string_view variant,
    const proto::NetworkConfig& config, uint64_t seed, std::string_view tool,
    std::string_view note) {
  EncoderOptions encoder_options;
  if (config.has_stack_layers()) {
    encoder_options.stack_layers = config.stack_layers();
  }
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder(game, encoder_options);
  if (!encoder.ok()) return encoder.status();
  proto::NetworkFile header;
  header.set_format_version(kNetworkFileFormatVersion);
  header.set_game(game.name);
  if (!variant.empty()) header.set_variant(std::string(variant));
  header.set_input_format_version((*encoder)->FormatVersion());
  header.mutable_encoder()->set_stack_layers(encoder_options.stack_layers);
  // Every tower field explicit, so that the file says what it is.
  const proto::Architecture& given = config.architecture();
  proto::Architecture* arch = header.mutable_architecture();
  arch->set_blocks(given.blocks());
  arch->set_filters(given.filters());
  arch->set_se_ratio(given.se_ratio());
  arch->set_policy_head_filters(PolicyHeadFilters(given));
  arch->set_value_head_filters(given.value_head_filters());
  arch->set_value_hidden(given.value_hidden());
  // Only nets with the head say so: a net without it has the same header
  // as before the head existed.
  if (HasMovesLeftHead(given)) {
    arch->set_moves_left_head_filters(given.moves_left_head_filters());
    arch->set_moves_left_hidden(given.moves_left_hidden());
  }
  SetGeometry(**encoder, arch);
  if (absl::Status s = ValidateArchitecture(*arch, /*require_geometry=*/true);
      !s.ok()) {
    return s;
  }
  proto::Provenance* provenance = header.mutable_provenance();
  provenance->set_generation(0);
  provenance->set_training_steps(0);
  provenance->set_training_positions(0);
  provenance->set_created(UtcTimestamp());
  provenance->set_seed(seed);
  provenance->set_tool(std::string(tool));
  provenance->set_note(std::string(note));
  return header;
}

}  // namespace volkhv::nn
