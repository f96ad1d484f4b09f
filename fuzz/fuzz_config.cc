// Text-proto configs (configs/*.textproto): the bytes as a loop config
// (`loop --config`), parsed with nn::MergeTextProto and checked as
// training::ValidateLoopConfig does (game, network, self-play and training
// sections; ValidateLoopConfig itself is in the LibTorch loop library); a
// valid one gives its self-play search parameters, its generation-0 net
// header and its training schedule. The same bytes are also read as the
// stand-alone network, self-play and training configs.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/games/games.h"
#include "fuzz/fuzz_check.h"
#include "nn/text_proto.h"
#include "nn/weights_file.h"
#include "proto/loop_config.pb.h"
#include "selfplay/selfplay_config.h"
#include "training/training_config.h"

namespace {

void CheckLoopConfig(const volkhv::proto::LoopConfig& config) {
  using namespace volkhv;
  GameOptions options;
  std::string variant;
  if (config.prince_max_steps() > 0) {
    options["prince_max_steps"] = config.prince_max_steps();
    variant = "prince_max_steps=" + std::to_string(config.prince_max_steps());
  }
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(config.game(), options);
  if (!game.ok()) return;
  if (!nn::ValidateArchitecture(config.network().architecture(),
                                /*require_geometry=*/false)
           .ok() ||
      !selfplay::ValidateSelfplayConfig(config.selfplay()).ok() ||
      !training::ValidateTrainingConfig(config.training()).ok()) {
    return;
  }
  for (const bool full : {true, false}) {
    absl::StatusOr<search::SearchParams> params =
        selfplay::SelfplaySearchParams(config.selfplay(), full);
    FUZZ_CHECK(params.ok(), params.status().message());
  }
  absl::StatusOr<proto::NetworkFile> header =
      nn::NewNetworkHeader((*game)->Info(), variant, config.network(),
                           config.network().seed(), "fuzz_config", "");
  if (header.ok()) {
    FUZZ_CHECK(nn::ParameterCount(header->architecture()) > 0, "parameters");
  }
  for (const int64_t step :
       {int64_t{0}, int64_t{1}, int64_t{config.training().steps()}}) {
    const double rate = training::LearningRate(config.training(), step);
    FUZZ_CHECK(std::isfinite(rate) && rate >= 0, "learning rate");
  }
  for (const int64_t n : {int64_t{1}, int64_t{1000000}, int64_t{1} << 40}) {
    const int64_t window = training::ReplayWindowSize(config.training(), n);
    FUZZ_CHECK(window >= 0 && window <= n, "replay window");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volkhv;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  proto::LoopConfig config;
  if (const absl::Status s = nn::MergeTextProto(text, "fuzz", &config);
      s.ok()) {
    CheckLoopConfig(config);
  } else {
    FUZZ_CHECK(!s.message().empty(), "error message");
  }
  static_cast<void>(nn::ParseNetworkConfig(text, "fuzz"));
  static_cast<void>(selfplay::ParseSelfplayConfig(text, "fuzz"));
  static_cast<void>(training::ParseTrainingConfig(text, "fuzz"));
  return 0;
}
