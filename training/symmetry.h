// Board symmetries for data augmentation: how a symmetry moves the squares,
// the input planes and the policy indices of a game's encoder. LibTorch-free.
#ifndef VOLKHV_TRAINING_SYMMETRY_H_
#define VOLKHV_TRAINING_SYMMETRY_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "nn/encoder.h"

namespace volkhv::training {

// The symmetries under which a game's rules and its encoder are invariant.
//
// Tavlei (tavlei9, tavlei11): the 8 symmetries of the square (the dihedral
// group D4): the throne is the centre, the exits/refuges are the four
// corners, moves are rook moves and captures are symmetric, and the encoder
// draws the board as is (no side-relative flip). With n = width - 1, a
// square (rank r, file f) goes to
//   0 identity (r, f)          4 mirror files     (r, n - f)
//   1 rotate 90 (f, n - r)     5 mirror ranks     (n - r, f)
//   2 rotate 180 (n-r, n-f)    6 transpose        (f, r)
//   3 rotate 270 (n - f, r)    7 anti-transpose   (n - f, n - r)
// Every plane moves with its squares (all Tavlei planes are per-square or
// constant), and a move from -> to goes to T(from) -> T(to), whose policy
// index the policy map gives.
//
// Tavreli: the identity only. Its encoder is already from the side to
// move's view (the colour flip is used up), and the left-right mirror is no
// symmetry: the king and queen start on fixed files and castling
// (kingside/queenside, with its rights) is not mirror-invariant.
//
// Immutable after creation: thread-safe.
class Symmetries {
 public:
  static absl::StatusOr<std::unique_ptr<Symmetries>> ForGame(
      const GameInfo& game, const nn::Encoder& encoder);

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

  nn::InputShape shape_;
  std::vector<std::vector<int>> square_maps_;  // [sym][square]
  std::vector<std::vector<int>> policy_maps_;  // [sym][index]; [0] empty
};

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_SYMMETRY_H_
