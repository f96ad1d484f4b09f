#include "training/symmetry.h"

#include "engine/game/strings.h"
#include "nn/tavlei_policy_map.h"

namespace volkhv::training {
namespace {

// (rank, file) -> (rank, file) of the dihedral symmetry `sym` (see the
// header) on a square board of side n + 1.
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

absl::StatusOr<std::unique_ptr<Symmetries>> Symmetries::ForGame(
    const GameInfo& game, const nn::Encoder& encoder) {
  std::unique_ptr<Symmetries> s(new Symmetries);
  s->shape_ = encoder.Shape();
  const int squares = s->shape_.height * s->shape_.width;
  std::vector<int> identity(squares);
  for (int sq = 0; sq < squares; ++sq) identity[sq] = sq;
  s->square_maps_.push_back(identity);
  s->policy_maps_.emplace_back();
  if (game.name != "tavlei9" && game.name != "tavlei11") return s;

  const int width = s->shape_.width;
  if (s->shape_.height != width || game.board_width != width ||
      game.board_height != width ||
      encoder.PolicySize() != nn::TavleiPolicySize(width)) {
    return absl::InternalError(Cat("symmetries: ", game.name,
                                   " encoder is not a square ", width, "x",
                                   width, " tafl encoder"));
  }
  const int n = width - 1;
  for (int sym = 1; sym < 8; ++sym) {
    std::vector<int> map(squares);
    for (int sq = 0; sq < squares; ++sq) {
      int r, f;
      MapRankFile(sym, n, sq / width, sq % width, &r, &f);
      map[sq] = r * width + f;
    }
    std::vector<int> policy(encoder.PolicySize(), -1);
    for (int index = 0; index < encoder.PolicySize(); ++index) {
      int from, to;
      if (nn::DecodeTavleiPolicyIndex(index, width, &from, &to)) {
        policy[index] = nn::TavleiPolicyIndex(map[from], map[to], width);
      }
    }
    s->square_maps_.push_back(std::move(map));
    s->policy_maps_.push_back(std::move(policy));
  }
  return s;
}

void Symmetries::TransformPlanes(int sym, const float* in, float* out) const {
  const int squares = shape_.height * shape_.width;
  const std::vector<int>& map = square_maps_[sym];
  for (int p = 0; p < shape_.planes; ++p) {
    const float* src = in + p * squares;
    float* dst = out + p * squares;
    for (int sq = 0; sq < squares; ++sq) dst[map[sq]] = src[sq];
  }
}

}  // namespace volkhv::training
