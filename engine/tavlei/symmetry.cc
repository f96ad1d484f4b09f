#include "engine/tavlei/symmetry.h"

#include "engine/tavlei/policy_map.h"
#include "engine/util/strings.h"

namespace volkhv::tavlei {
namespace {

// (rank, file) -> (rank, file) of the dihedral symmetry `sym` (see the
// header; 0 is the identity) on a square board of side n + 1.
void MapRankFile(int sym, int n, int r, int f, int* out_r, int* out_f) {
  switch (sym) {
    case 0:
      *out_r = r, *out_f = f;
      return;
    case 1:
      *out_r = f, *out_f = n - r;
      return;
    case 2:
      *out_r = n - r, *out_f = n - f;
      return;
    case 3:
      *out_r = n - f, *out_f = r;
      return;
    case 4:
      *out_r = r, *out_f = n - f;
      return;
    case 5:
      *out_r = n - r, *out_f = f;
      return;
    case 6:
      *out_r = f, *out_f = r;
      return;
    default:
      *out_r = n - f, *out_f = n - r;
      return;
  }
}

}  // namespace

absl::StatusOr<std::vector<BoardSymmetry>> SquareSymmetries(
    const GameInfo& game, const Encoder& encoder) {
  const InputShape shape = encoder.Shape();
  const int width = shape.width;
  if (shape.height != width || game.board_width != width ||
      game.board_height != width ||
      encoder.PolicySize() != TavleiPolicySize(width)) {
    return absl::InternalError(Cat("symmetries: ", game.name,
                                   " encoder is not a square ", width, "x",
                                   width, " tafl encoder"));
  }
  const int squares = width * width;
  const int n = width - 1;
  std::vector<BoardSymmetry> symmetries;
  for (int sym = 1; sym < 8; ++sym) {
    BoardSymmetry s;
    s.squares.resize(squares);
    for (int sq = 0; sq < squares; ++sq) {
      int r, f;
      MapRankFile(sym, n, sq / width, sq % width, &r, &f);
      s.squares[sq] = r * width + f;
    }
    s.policy.assign(encoder.PolicySize(), -1);
    for (int index = 0; index < encoder.PolicySize(); ++index) {
      int from, to;
      if (DecodeTavleiPolicyIndex(index, width, &from, &to)) {
        s.policy[index] =
            TavleiPolicyIndex(s.squares[from], s.squares[to], width);
      }
    }
    symmetries.push_back(std::move(s));
  }
  return symmetries;
}

}  // namespace volkhv::tavlei
