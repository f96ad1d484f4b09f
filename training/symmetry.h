// Board symmetries for data augmentation: how a symmetry moves the squares,
// the input planes and the policy indices of a game's encoder. LibTorch-free.
#ifndef VOLKHV_TRAINING_SYMMETRY_H_
#define VOLKHV_TRAINING_SYMMETRY_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/encoder.h"
#include "engine/game/game.h"

namespace volkhv::training {

// The symmetries under which a game's rules and its encoder are invariant:
// the identity (index 0) and those its game module lists (GameModule::
// symmetries). Every plane moves with its
// squares, and a move's policy index goes where the module says.
//
// Immutable after creation: thread-safe.
class Symmetries {
 public:
  static absl::StatusOr<std::unique_ptr<Symmetries>> ForGame(
      const GameInfo& game, const Encoder& encoder);

  int count() const { return static_cast<int>(square_maps_.size()); }
  // Where symmetry `sym` sends `square` (rank * width + file).
  int MapSquare(int sym, int square) const { return square_maps_[sym][square]; }
  // out[plane][T(square)] = in[plane][square] for Shape().Size() floats.
  // `in` and `out` must not overlap.
  void TransformPlanes(int sym, const float* in, float* out) const;
  // The policy index of the transformed move of `index`; -1 when `index`
  // stands for no move on the board.
  int MapPolicyIndex(int sym, int index) const {
    return sym == 0 ? index : policy_maps_[sym][index];
  }

 private:
  Symmetries() = default;

  InputShape shape_;
  std::vector<std::vector<int>> square_maps_;  // [sym][square]
  std::vector<std::vector<int>> policy_maps_;  // [sym][index]; [0] empty
};

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_SYMMETRY_H_
