#include "nn/encoder.h"

#include "engine/game/strings.h"
#include "nn/tavlei_encoder.h"
#include "nn/tavreli_encoder.h"

namespace volkhv::nn {

absl::StatusOr<std::unique_ptr<Encoder>> MakeEncoder(
    const GameInfo& game, const EncoderOptions& options) {
  if (options.stack_layers < 1 || options.stack_layers > 32) {
    return absl::InvalidArgumentError(
        Cat("encoder: stack_layers must be 1..32, got ", options.stack_layers));
  }
  if (game.name == "tavreli") {
    return std::make_unique<TavreliEncoder>(options.stack_layers);
  }
  if (game.name == "tavlei9" || game.name == "tavlei11") {
    const int width = game.name == "tavlei9" ? 9 : 11;
    if (game.board_width != width || game.board_height != width) {
      return absl::InvalidArgumentError(
          Cat("encoder: ", game.name, " with a ", game.board_width, "x",
              game.board_height, " board (expected ", width, "x", width, ")"));
    }
    return std::make_unique<TavleiEncoder>(width);
  }
  return absl::InvalidArgumentError(
      Cat("encoder: no encoder for game '", game.name, "'"));
}

}  // namespace volkhv::nn
