// What the network sees of a game: input planes and the policy index of each
// legal move. Each game module implements one (engine/tavreli/encoder.h,
// engine/tavlei/encoder.h) and the registry (engine/games/games.h) makes it;
// the network code uses only this interface. LibTorch-free.
#ifndef VOLKHV_ENGINE_GAME_ENCODER_H_
#define VOLKHV_ENGINE_GAME_ENCODER_H_

#include <cstdint>

#include "engine/game/game.h"

namespace volkhv {

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

// What the network's configuration says about the encoding; a game uses
// what applies to it. MakeEncoder (engine/games/games.h) checks the ranges.
struct EncoderOptions {
  int stack_layers =
      4;  // games with stacks: layers encoded one-hot from the top
};

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_ENCODER_H_
