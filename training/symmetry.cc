#include "training/symmetry.h"

#include "engine/games/games.h"

namespace volkhv::training {

absl::StatusOr<std::unique_ptr<Symmetries>> Symmetries::ForGame(
    const GameInfo& game, const Encoder& encoder) {
  std::unique_ptr<Symmetries> s(new Symmetries);
  s->shape_ = encoder.Shape();
  const int squares = s->shape_.height * s->shape_.width;
  std::vector<int> identity(squares);
  for (int sq = 0; sq < squares; ++sq) identity[sq] = sq;
  s->square_maps_.push_back(identity);
  s->policy_maps_.emplace_back();
  absl::StatusOr<std::vector<BoardSymmetry>> more =
      GameSymmetries(game, encoder);
  if (!more.ok()) return more.status();
  for (BoardSymmetry& symmetry : *more) {
    s->square_maps_.push_back(std::move(symmetry.squares));
    s->policy_maps_.push_back(std::move(symmetry.policy));
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
