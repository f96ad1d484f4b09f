// What the network sees of a game: input planes and the policy index of each
// legal move. One Encoder per game; LibTorch-free.
#ifndef VOLKHV_NN_ENCODER_H_
#define VOLKHV_NN_ENCODER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "engine/game/game.h"

namespace volkhv::nn {

struct InputShape {
  int planes = 0;
  int height = 0;
  int width = 0;
  int Size() const { return planes * height * width; }
};

// Thread-safe: all methods are const and keep no state.
class Encoder {
 public:
  virtual ~Encoder() = default;

  // Bumped whenever the planes change meaning; stored in weight files.
  virtual int FormatVersion() const = 0;
  virtual InputShape Shape() const = 0;
  // Number of policy logits: policy_channels * height * width.
  virtual int PolicySize() const = 0;
  virtual int PolicyChannels() const = 0;

  // Writes Shape().Size() floats, [plane][rank][file], from the point of
  // view of the side to move.
  virtual void Encode(const GameState& state, float* out) const = 0;
  // The policy index of a legal move of `state` (same point of view).
  virtual int PolicyIndex(const GameState& state, Move move) const = 0;
  // A key for the NN cache: equal keys mean equal encodings.
  virtual uint64_t CacheKey(const GameState& state) const = 0;
};

// The encoder of a game ("tavreli", "tavlei9", "tavlei11"); options such as
// the number of stack layers come from the network's configuration.
struct EncoderOptions {
  int stack_layers = 4;  // Tavreli: layers encoded one-hot from the top
};
absl::StatusOr<std::unique_ptr<Encoder>> MakeEncoder(
    const GameInfo& game, const EncoderOptions& options);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_ENCODER_H_
