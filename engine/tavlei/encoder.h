// The Tavlei input encoding and policy indices (tavlei9, tavlei11).
#ifndef VOLKHV_ENGINE_TAVLEI_ENCODER_H_
#define VOLKHV_ENGINE_TAVLEI_ENCODER_H_

#include <cstdint>

#include "engine/game/encoder.h"
#include "engine/game/game.h"

namespace volkhv::tavlei {

// Planes of width x width, [plane][rank][file], board orientation as is (no
// flipping: attackers and defenders play different games, so "own/enemy"
// would only blur them; the side-to-move plane says whose turn it is):
//
//   plane | meaning
//   ------+------------------------------------------------------------
//   0     | attackers
//   1     | defenders (the prince/king not included)
//   2     | the prince/king
//   3     | the throne square
//   4     | the exits (tavlei9) / refuges (tavlei11): the four corners
//   5     | side to move: all 1 when the defenders are to move
//   6     | ones
class TavleiEncoder final : public Encoder {
 public:
  enum PlaneIndex {
    kAttackers = 0,
    kDefenders,
    kKing,
    kThrone,
    kCorners,
    kSideToMove,
    kOnes,
    kNumPlanes,
  };

  // width: 9 or 11 (MakeEncoder checks).
  explicit TavleiEncoder(int width) : width_(width) {}

  int FormatVersion() const override { return 1; }
  InputShape Shape() const override { return {kNumPlanes, width_, width_}; }
  int PolicySize() const override;
  int PolicyChannels() const override;
  void Encode(const GameState& state, float* out) const override;
  int PolicyIndex(const GameState& state, Move move) const override;
  uint64_t CacheKey(const GameState& state) const override {
    return state.Hash();
  }

 private:
  int width_;
};

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_ENCODER_H_
