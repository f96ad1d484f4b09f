// 64-bit square sets for the 8x8 Tavreli board and the attack tables of the
// piece movements (king, knight, pawn, sliders through empty squares).
#ifndef VOLKHV_ENGINE_TAVRELI_BITBOARD_H_
#define VOLKHV_ENGINE_TAVRELI_BITBOARD_H_

#include <bit>
#include <cstdint>

namespace volkhv::tavreli {

using Bitboard = uint64_t;

inline constexpr int kNumSquares = 64;
inline constexpr Bitboard kRank1 = 0xFFull;
inline constexpr Bitboard kFileA = 0x0101010101010101ull;

constexpr Bitboard SquareBit(int square) { return Bitboard{1} << square; }
constexpr int FileOf(int square) { return square & 7; }
constexpr int RankOf(int square) { return square >> 3; }
constexpr int MakeSquare(int file, int rank) { return rank * 8 + file; }
inline int Lsb(Bitboard b) { return std::countr_zero(b); }
inline int PopLsb(Bitboard& b) {
  const int square = std::countr_zero(b);
  b &= b - 1;
  return square;
}
inline int PopCount(Bitboard b) { return std::popcount(b); }

// Tables, filled once at static-initialisation time (thread-safe to read).
struct AttackTables {
  Bitboard king[64];
  Bitboard knight[64];
  Bitboard pawn[2][64];       // squares a pawn of colour c on s attacks
  Bitboard ray[8][64];        // empty-board rays; directions in kRayDirections
  Bitboard rook_lines[64];    // union of rays 0-3
  Bitboard bishop_lines[64];  // union of rays 4-7
  Bitboard queen_lines[64];   // union of the eight rays
};
const AttackTables& Tables();

// Direction order: N, E, S, W (rook), NE, SE, SW, NW (bishop).
// Directions 0, 1, 4, 7 increase the square index ("positive").
Bitboard RookAttacks(int square, Bitboard occupied);
Bitboard BishopAttacks(int square, Bitboard occupied);
inline Bitboard QueenAttacks(int square, Bitboard occupied) {
  return RookAttacks(square, occupied) | BishopAttacks(square, occupied);
}

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_BITBOARD_H_
