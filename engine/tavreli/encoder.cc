#include "engine/tavreli/encoder.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/tavreli/piece.h"
#include "engine/tavreli/policy_map.h"
#include "engine/tavreli/position.h"
#include "engine/tavreli/tavreli_game.h"
#include "engine/util/random.h"

namespace volkhv::tavreli {
namespace {

// Identity 0..14 of a piece byte (colour ignored): K Q R B N, pawns by
// symbol R N B Q H, promoted pawns by symbol R N B Q H.
constexpr std::array<int8_t, 256> MakeIdentityTable() {
  // PieceType (Q=1 R=2 B=3 N=4 H=5) -> position in R N B Q H.
  constexpr int kSymbolOrder[8] = {0, 3, 0, 2, 1, 4, 0, 0};
  std::array<int8_t, 256> table{};
  for (int b = 0; b < 256; ++b) {
    const Piece p = static_cast<Piece>(b);
    int id;
    if (IsPromoted(p)) {
      id = 10 + kSymbolOrder[SymbolOf(p)];
    } else if (IsPawn(p)) {
      id = 5 + kSymbolOrder[SymbolOf(p)];
    } else if (TypeOf(p) == kHelgi) {
      id = 14;  // a Helgi is always a promoted pawn
    } else {
      id = TypeOf(p);
    }
    table[b] = static_cast<int8_t>(id);
  }
  return table;
}

constexpr std::array<int8_t, 256> kIdentity = MakeIdentityTable();

const TavreliState& AsTavreli(const GameState& state) {
  const auto* s = dynamic_cast<const TavreliState*>(&state);
  if (s == nullptr) {
    std::fprintf(stderr, "TavreliEncoder given a %s state\n",
                 state.Info().name.c_str());
    std::abort();
  }
  return *s;
}

void Fill(float* plane, float value) { std::fill(plane, plane + 64, value); }

// The repetition feature's input: min(occurrences - 1, 2).
int RepetitionLevel(const TavreliState& state) {
  return std::clamp(state.Occurrences() - 1, 0, 2);
}

}  // namespace

TavreliEncoder::TavreliEncoder(int stack_layers)
    : layers_(stack_layers),
      planes_(kPlanesPerLayer * stack_layers + kExtraPlanes) {}

int TavreliEncoder::PolicySize() const { return kTavreliPolicySize; }
int TavreliEncoder::PolicyChannels() const { return kTavreliPolicyChannels; }

void TavreliEncoder::Encode(const GameState& state, float* out) const {
  const TavreliState& game = AsTavreli(state);
  const Position& pos = game.current();
  std::memset(out, 0, sizeof(float) * planes_ * 64);
  const Color us = pos.SideToMove();
  const int flip = us == kWhite ? 0 : 56;
  float* const own_buried = out + 64 * Plane(kOwnBuried);
  float* const enemy_buried = out + 64 * Plane(kEnemyBuried);
  float* const height = out + 64 * Plane(kHeight);
  float* const own_double = out + 64 * Plane(kOwnDoubleStep);
  float* const enemy_double = out + 64 * Plane(kEnemyDoubleStep);

  Piece pieces[kMaxStackHeight];
  bool moved[kMaxStackHeight];
  for (Bitboard occupied = pos.Occupied(); occupied;) {
    const int square = PopLsb(occupied);
    const int cell = square ^ flip;
    const int h = pos.StackBottomToTop(square, pieces, moved);
    height[cell] = h * kCountScale;
    int buried[2] = {0, 0};  // [own, enemy]
    for (int depth = 0; depth < h; ++depth) {
      const int i = h - 1 - depth;
      const Piece p = pieces[i];
      const bool own = ColorOf(p) == us;
      if (depth < layers_) {
        out[64 * LayerPlane(depth, own, kIdentity[p]) + cell] = 1;
      } else {
        ++buried[own ? 0 : 1];
      }
      if (!moved[i] && IsPawn(p)) {
        (own ? own_double : enemy_double)[cell] = 1;
      }
    }
    own_buried[cell] = buried[0] * kCountScale;
    enemy_buried[cell] = buried[1] * kCountScale;
  }

  if (us == kBlack) Fill(out + 64 * Plane(kSideToMove), 1);
  const uint8_t castling = pos.Castling();
  const bool white = us == kWhite;
  const uint8_t own_k = white ? kWhiteKingside : kBlackKingside;
  const uint8_t own_q = white ? kWhiteQueenside : kBlackQueenside;
  const uint8_t enemy_k = white ? kBlackKingside : kWhiteKingside;
  const uint8_t enemy_q = white ? kBlackQueenside : kWhiteQueenside;
  if (castling & own_k) Fill(out + 64 * Plane(kOwnKingside), 1);
  if (castling & own_q) Fill(out + 64 * Plane(kOwnQueenside), 1);
  if (castling & enemy_k) Fill(out + 64 * Plane(kEnemyKingside), 1);
  if (castling & enemy_q) Fill(out + 64 * Plane(kEnemyQueenside), 1);
  if (pos.EnPassantSquare() != kNoSquare) {
    out[64 * Plane(kEnPassant) + (pos.EnPassantSquare() ^ flip)] = 1;
  }
  const int repetition = RepetitionLevel(game);
  if (repetition > 0) Fill(out + 64 * Plane(kRepetition), repetition * 0.5f);
  if (pos.HalfmoveClock() > 0) {
    Fill(out + 64 * Plane(kFiftyMove), pos.HalfmoveClock() / 100.0f);
  }
  Fill(out + 64 * Plane(kOnes), 1);
}

int TavreliEncoder::PolicyIndex(const GameState& state, Move move) const {
  const Position& pos = AsTavreli(state).current();
  return TavreliPolicyIndex(move.from, move.to, move.count,
                            pos.Height(move.from), pos.SideToMove());
}

uint64_t TavreliEncoder::CacheKey(const GameState& state) const {
  const TavreliState& game = AsTavreli(state);
  const Position& pos = game.current();
  // Hash() covers stacks, side, castling and double-step rights, and the en
  // passant square only when a capture there is legal; the planes also show
  // the TFEN en passant square, the repetition level and the clock.
  const uint64_t extra = uint64_t(RepetitionLevel(game)) |
                         uint64_t(pos.HalfmoveClock()) << 8 |
                         uint64_t(pos.EnPassantSquare() + 1) << 32;
  return pos.Hash() ^ SplitMix64(extra);
}

}  // namespace volkhv::tavreli
