#include "engine/tavlei/encoder.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/tavlei/policy_map.h"
#include "engine/tavlei/position.h"
#include "engine/tavlei/rules.h"
#include "engine/tavlei/tavlei_state.h"

namespace volkhv::tavlei {
namespace {

const TavleiState& AsTavlei(const GameState& state) {
  const auto* s = dynamic_cast<const TavleiState*>(&state);
  if (s == nullptr) {
    std::fprintf(stderr, "TavleiEncoder given a %s state\n",
                 state.Info().name.c_str());
    std::abort();
  }
  return *s;
}

}  // namespace

int TavleiEncoder::PolicySize() const { return TavleiPolicySize(width_); }
int TavleiEncoder::PolicyChannels() const {
  return TavleiPolicyChannels(width_);
}

void TavleiEncoder::Encode(const GameState& state, float* out) const {
  const TavleiState& game = AsTavlei(state);
  const Position& pos = game.position();
  const Rules& rules = game.rules();
  const int squares = width_ * width_;
  std::memset(out, 0, sizeof(float) * kNumPlanes * squares);
  for (int side = 0; side < 2; ++side) {
    pos.pieces[side].ForEach([&](int sq) {
      const uint8_t piece = pos.board[sq];
      const int plane = piece == kAttacker   ? kAttackers
                        : piece == kDefender ? kDefenders
                                             : kKing;
      out[plane * squares + sq] = 1;
      return true;
    });
  }
  out[kThrone * squares + rules.throne] = 1;
  for (int sq = 0; sq < squares; ++sq) {
    if (rules.is_corner[sq]) out[kCorners * squares + sq] = 1;
  }
  if (pos.side == kDefenders) {
    std::fill_n(out + kSideToMove * squares, squares, 1.0f);
  }
  std::fill_n(out + kOnes * squares, squares, 1.0f);
}

int TavleiEncoder::PolicyIndex(const GameState& state, Move move) const {
  return TavleiPolicyIndex(move.from, move.to, width_);
}

}  // namespace volkhv::tavlei
