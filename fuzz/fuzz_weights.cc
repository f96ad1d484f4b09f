// Network weight files (nn/weights_file.h) as every backend and the
// trainer read them: the bytes, and when they are refused, again with a
// valid checksum appended (so that the protobuf body is fuzzed past the
// CRC-32 check). Accepted weights serialize back to bytes that parse to the
// same tensors, and are matched against each game's encoder as a backend
// would.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/game/encoder.h"
#include "engine/games/games.h"
#include "engine/util/checked_file.h"
#include "engine/util/files.h"
#include "fuzz/fuzz_check.h"
#include "nn/weights_file.h"

namespace {

void CheckWeights(const volkhv::nn::NetworkWeights& weights) {
  using namespace volkhv;
  const proto::Architecture& arch = weights.architecture();
  FUZZ_CHECK(nn::ValidateArchitecture(arch, /*require_geometry=*/true).ok(),
             "accepted weights have a valid architecture");
  nn::ArchitectureSummary(arch);
  FUZZ_CHECK(nn::ParameterCount(arch) > 0, "parameters");
  FUZZ_CHECK(nn::FlopsPerPosition(arch) > 0, "flops");
  FUZZ_CHECK(nn::NetworkTensorSpecs(arch).size() == weights.tensors.size(),
             "tensor count");
  for (const nn::TensorData& tensor : weights.tensors) {
    FUZZ_CHECK(weights.Find(tensor.name) == &tensor, tensor.name);
  }

  absl::StatusOr<std::string> bytes = nn::SerializeNetworkWeights(weights);
  FUZZ_CHECK(bytes.ok(), bytes.status().message());
  absl::StatusOr<nn::NetworkWeights> back = nn::ParseNetworkWeights(*bytes);
  FUZZ_CHECK(back.ok(), back.status().message());
  FUZZ_CHECK(back->tensors.size() == weights.tensors.size(), "round trip");
  for (size_t i = 0; i < weights.tensors.size(); ++i) {
    FUZZ_CHECK(back->tensors[i].name == weights.tensors[i].name &&
                   back->tensors[i].shape == weights.tensors[i].shape &&
                   back->tensors[i].values == weights.tensors[i].values,
               weights.tensors[i].name);
  }

  const EncoderOptions options = nn::EncoderOptionsOf(weights);
  for (const std::string_view name : GameNames()) {
    absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(name);
    FUZZ_CHECK(game.ok(), name);
    absl::StatusOr<std::unique_ptr<Encoder>> encoder =
        MakeEncoder((*game)->Info(), options);
    if (!encoder.ok()) continue;
    static_cast<void>(nn::CheckNetworkFits(weights, name, **encoder));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volkhv;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The bytes as they are, and when they are refused, with a checksum.
  for (const std::string& file :
       {std::string(bytes), WithChecksum(std::string(bytes))}) {
    absl::StatusOr<nn::NetworkWeights> weights = nn::ParseNetworkWeights(file);
    if (!weights.ok()) {
      FUZZ_CHECK(!weights.status().message().empty(), "error message");
      continue;
    }
    CheckWeights(*weights);
    break;
  }
  return 0;
}
