#include "engine/tavreli/bitboard.h"

namespace volkhv::tavreli {
namespace {

constexpr int kDirFile[8] = {0, 1, 0, -1, 1, 1, -1, -1};
constexpr int kDirRank[8] = {1, 0, -1, 0, 1, -1, -1, 1};
constexpr bool kPositive[8] = {true, true,  false, false,
                               true, false, false, true};

constexpr Bitboard StepTargets(int square, const int (*steps)[2], int count) {
  Bitboard targets = 0;
  for (int i = 0; i < count; ++i) {
    const int f = FileOf(square) + steps[i][0];
    const int r = RankOf(square) + steps[i][1];
    if (f >= 0 && f < 8 && r >= 0 && r < 8)
      targets |= SquareBit(MakeSquare(f, r));
  }
  return targets;
}

constexpr int kKingSteps[8][2] = {{1, 0},  {1, 1},   {0, 1},  {-1, 1},
                                  {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
constexpr int kKnightSteps[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                    {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
constexpr int kWhitePawn[2][2] = {{-1, 1}, {1, 1}};
constexpr int kBlackPawn[2][2] = {{-1, -1}, {1, -1}};

constexpr AttackTables BuildTables() {
  AttackTables t{};
  for (int s = 0; s < 64; ++s) {
    t.king[s] = StepTargets(s, kKingSteps, 8);
    t.knight[s] = StepTargets(s, kKnightSteps, 8);
    t.pawn[0][s] = StepTargets(s, kWhitePawn, 2);
    t.pawn[1][s] = StepTargets(s, kBlackPawn, 2);
    t.rook_lines[s] = 0;
    t.bishop_lines[s] = 0;
    for (int d = 0; d < 8; ++d) {
      Bitboard ray = 0;
      int f = FileOf(s) + kDirFile[d];
      int r = RankOf(s) + kDirRank[d];
      while (f >= 0 && f < 8 && r >= 0 && r < 8) {
        ray |= SquareBit(MakeSquare(f, r));
        f += kDirFile[d];
        r += kDirRank[d];
      }
      t.ray[d][s] = ray;
      (d < 4 ? t.rook_lines[s] : t.bishop_lines[s]) |= ray;
    }
    t.queen_lines[s] = t.rook_lines[s] | t.bishop_lines[s];
  }
  return t;
}

constexpr AttackTables kTables = BuildTables();

template <int kDir>
inline Bitboard RayAttacks(int square, Bitboard occupied) {
  const Bitboard ray = kTables.ray[kDir][square];
  const Bitboard blockers = ray & occupied;
  if (!blockers) return ray;
  const int first =
      kPositive[kDir] ? Lsb(blockers) : 63 - std::countl_zero(blockers);
  return ray ^ kTables.ray[kDir][first];
}

}  // namespace

const AttackTables& Tables() { return kTables; }

Bitboard RookAttacks(int square, Bitboard occupied) {
  return RayAttacks<0>(square, occupied) | RayAttacks<1>(square, occupied) |
         RayAttacks<2>(square, occupied) | RayAttacks<3>(square, occupied);
}

Bitboard BishopAttacks(int square, Bitboard occupied) {
  return RayAttacks<4>(square, occupied) | RayAttacks<5>(square, occupied) |
         RayAttacks<6>(square, occupied) | RayAttacks<7>(square, occupied);
}

}  // namespace volkhv::tavreli
