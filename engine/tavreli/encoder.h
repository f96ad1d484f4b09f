// The Tavreli input encoding (layered stack planes) and policy indices, from
// the side to move's point of view.
#ifndef VOLKHV_ENGINE_TAVRELI_ENCODER_H_
#define VOLKHV_ENGINE_TAVRELI_ENCODER_H_

#include <cstdint>

#include "engine/game/encoder.h"
#include "engine/game/game.h"

namespace volkhv::tavreli {

// Planes of 8 x 8, [plane][rank][file], rank 0 = the side to move's first
// rank (Black to move: board rank r is row 7 - r; files are never mirrored).
// "Own" = the side to move. With L = stack layers (default 4, 134 planes):
//
//   plane                | meaning
//   ---------------------+-----------------------------------------------------
//   30*l + i (l < L)     | layer l of the stack (0 = top, 1 = under it, ...):
//                        | one-hot identity i, own i = 0..14, enemy 15..29;
//                        | identity order K Q R B N, pawn by symbol
//                        | PR PN PB PQ PH, promoted pawn by what it shows
//                        | +R +N +B +Q +H
//   30L + 0              | own pieces buried below layer L (depth >= L) / 8
//   30L + 1              | enemy pieces buried below layer L / 8
//   30L + 2              | stack height / 8 (0 on empty squares)
//   30L + 3              | side to move: all 1 when Black is to move
//   30L + 4 .. 30L + 7   | castling rights (constant planes): own kingside,
//                        | own queenside, enemy kingside, enemy queenside
//   30L + 8              | en passant: 1 on the TFEN en passant square
//   30L + 9, 30L + 10    | double-step rights: 1 where the stack holds a
//                        | never-moved own (enemy) pawn, at any depth
//   30L + 11             | repetition: min(count - 1, 2) / 2, constant, count
//                        | = occurrences of this position (1 = first)
//   30L + 12             | fifty-move rule: halfmove clock / 100, constant
//   30L + 13             | ones
//
// Scales: a stack holds at most 32 pieces, but buried counts and heights
// above 8 are rare (see docs/network.md), so /8 keeps the usual values in
// [0, 1] while staying exact for the rare tall towers.
class TavreliEncoder final : public Encoder {
 public:
  static constexpr int kIdentities = 15;  // per colour
  static constexpr int kPlanesPerLayer = 2 * kIdentities;
  static constexpr int kExtraPlanes = 14;
  static constexpr float kCountScale = 1.0f / 8;  // buried counts, height

  // Offsets of the planes after the layers, from 30 * L.
  enum ExtraPlane {
    kOwnBuried = 0,
    kEnemyBuried,
    kHeight,
    kSideToMove,
    kOwnKingside,
    kOwnQueenside,
    kEnemyKingside,
    kEnemyQueenside,
    kEnPassant,
    kOwnDoubleStep,
    kEnemyDoubleStep,
    kRepetition,
    kFiftyMove,
    kOnes,
  };

  // 1 <= stack_layers <= 32 (MakeEncoder checks).
  explicit TavreliEncoder(int stack_layers);

  int stack_layers() const { return layers_; }
  // The plane of an extra feature.
  int Plane(ExtraPlane p) const { return kPlanesPerLayer * layers_ + p; }
  // The plane of identity `identity` (0..14) at `layer`, own or enemy.
  static int LayerPlane(int layer, bool own, int identity) {
    return kPlanesPerLayer * layer + (own ? 0 : kIdentities) + identity;
  }

  int FormatVersion() const override { return 1; }
  InputShape Shape() const override { return {planes_, 8, 8}; }
  int PolicySize() const override;
  int PolicyChannels() const override;
  void Encode(const GameState& state, float* out) const override;
  int PolicyIndex(const GameState& state, Move move) const override;
  uint64_t CacheKey(const GameState& state) const override;

 private:
  int layers_;
  int planes_;
};

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_ENCODER_H_
