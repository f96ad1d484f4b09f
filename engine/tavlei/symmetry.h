// The symmetries of a Tavlei board, for data augmentation.
#ifndef VOLKHV_ENGINE_TAVLEI_SYMMETRY_H_
#define VOLKHV_ENGINE_TAVLEI_SYMMETRY_H_

#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/encoder.h"
#include "engine/game/game.h"
#include "engine/game/game_module.h"

namespace volkhv::tavlei {

// The 7 symmetries of the square other than the identity (the dihedral
// group D4): the throne is the centre, the exits/refuges are the four
// corners, moves are rook moves and captures are symmetric, and the encoder
// draws the board as is (no side-relative flip). With n = width - 1, a
// square (rank r, file f) goes to
//   1 rotate 90 (f, n - r)     4 mirror files     (r, n - f)
//   2 rotate 180 (n-r, n-f)    5 mirror ranks     (n - r, f)
//   3 rotate 270 (n - f, r)    6 transpose        (f, r)
//                              7 anti-transpose   (n - f, n - r)
// in that order. Every plane moves with its squares (all Tavlei planes are
// per-square or constant), and a move from -> to goes to T(from) -> T(to),
// whose policy index the policy map gives. An error when `encoder` is not
// the square tafl encoder of `game`. Thread-safe.
absl::StatusOr<std::vector<BoardSymmetry>> SquareSymmetries(
    const GameInfo& game, const Encoder& encoder);

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_SYMMETRY_H_
