#include "engine/tavreli/heuristic.h"

#include <algorithm>
#include <cstdlib>

#include "engine/tavreli/movegen.h"
#include "engine/tavreli/tavreli_game.h"

namespace volkhv::tavreli {
namespace {

// Mobility: centipawns per destination square of a top piece of each type,
// counted from a typical number of squares so that mobility stays a small
// correction to material (K Q R B N H P).
constexpr int kMobilityWeight[kNumPieceTypes] = {0, 1, 2, 4, 4, 1, 0};
constexpr int kMobilityBase[kNumPieceTypes] = {0, 12, 6, 6, 4, 14, 0};

// King safety: attack units per attacked square of the king's zone (the king
// and its neighbours) by an enemy top piece of each type; the penalty grows
// with the square of the units, capped.
constexpr int kKingAttackWeight[kNumPieceTypes] = {0, 4, 3, 2, 2, 5, 1};
constexpr int kKingDangerCap = 450;
// Own pieces on the three squares in front of a king on its first two ranks.
constexpr int kShieldPawn = 12;
constexpr int kShieldPiece = 6;

// Advance of an unpromoted pawn on top of its stack, by rank from its own
// side (promotion happens on arrival at rank 7, so index 7 is unused).
constexpr int kPawnAdvance[8] = {0, 0, 4, 8, 15, 25, 45, 0};

// Loose stacks of the side to move: it can save one; each further one is
// counted at this percentage of what its capture would cost.
constexpr int kLoosePercent = 50;

// Mop-up: applies when a side leads by kMopUpLead and the other has at most
// kMopUpMaxActive of material on top of stacks (besides the king).
constexpr int kMopUpLead = 300;
constexpr int kMopUpMaxActive = 1000;
constexpr int kMopUpEdge = 10;     // per step of the losing king from centre
constexpr int kMopUpApproach = 4;  // per step the kings are closer than 14
constexpr int kMopUpCramp = 6;     // per square the losing king cannot use

// Bonus of the side to move (its tempo).
constexpr int kTempo = 10;

Bitboard AttacksOf(Piece piece, int square, Bitboard occupied) {
  const AttackTables& t = Tables();
  switch (TypeOf(piece)) {
    case kKing:
      return t.king[square];
    case kKnight:
      return t.knight[square];
    case kRook:
      return RookAttacks(square, occupied);
    case kBishop:
      return BishopAttacks(square, occupied);
    case kQueen:
      return QueenAttacks(square, occupied);
    case kHelgi:
      return QueenAttacks(square, occupied) | t.knight[square];
    case kPawn:
      return t.pawn[ColorOf(piece)][square];
  }
  return 0;
}

int Value(Piece piece) { return kPieceValue[TypeOf(piece)]; }

int CentreDistance(int square) {
  const int file = FileOf(square);
  const int rank = RankOf(square);
  return std::max(3 - file, file - 4) + std::max(3 - rank, rank - 4);
}

int KingDistance(int a, int b) {
  return std::abs(FileOf(a) - FileOf(b)) + std::abs(RankOf(a) - RankOf(b));
}

// What one stack means for the loose-stack term.
struct StackInfo {
  int square;
  int stake;  // what its owner loses (and the taker gains) if it is taken
};

}  // namespace

int EvalTerms::Total(Color color) const {
  const Color o = Opponent(color);
  return material[color] - material[o] + mobility[color] - mobility[o] +
         king_safety[color] - king_safety[o] + pawns[color] - pawns[o] +
         loose[color] - loose[o] + mop_up[color] - mop_up[o];
}

int StackValue(const Position& pos, int square) {
  Piece stack[kMaxStackHeight];
  const int h = pos.StackBottomToTop(square, stack, nullptr);
  int value = 0;
  for (int i = 0; i < h; ++i) value += Value(stack[i]);
  return value;
}

int EvaluateForWhite(const Position& pos, EvalTerms* terms) {
  EvalTerms t;
  const AttackTables& tables = Tables();
  const TopBoards& b = pos.Tops();
  const Bitboard occupied = b.Occupied();
  const Bitboard kings = b.type[kKing];
  Bitboard attacks[2] = {0, 0};
  Bitboard attacks_from[64];  // of the top piece on each occupied square
  int active[2] = {0, 0};     // value of the non-king top pieces
  StackInfo stacks[2][kMaxPieces];
  int num_stacks[2] = {0, 0};
  Piece stack[kMaxStackHeight];

  for (Bitboard squares = occupied; squares;) {
    const int square = PopLsb(squares);
    const int h = pos.StackBottomToTop(square, stack, nullptr);
    const Piece top = stack[h - 1];
    const Color owner = ColorOf(top);
    const Color enemy = Opponent(owner);
    t.material[owner] += Value(top);
    active[owner] += Value(top);
    // Own pieces in the stack as counted now, their raw value, and the raw
    // value of the enemy pieces held in it: the stake of a capture.
    int own_counted = Value(top);
    int own_raw = Value(top);
    int prisoners_raw = 0;
    for (int i = 0; i + 1 < h; ++i) {
      const int v = Value(stack[i]);
      if (ColorOf(stack[i]) == owner) {
        t.material[owner] += v * kReservePercent / 100;
        own_counted += v * kReservePercent / 100;
        own_raw += v;
      } else {
        t.material[enemy] += v * kPrisonerPercent / 100;
        prisoners_raw += v;
      }
    }
    const Bitboard a = AttacksOf(top, square, occupied);
    attacks_from[square] = a;
    attacks[owner] |= a;
    const PieceType type = TypeOf(top);
    if (type == kPawn) {
      const int rank = owner == kWhite ? RankOf(square) : 7 - RankOf(square);
      t.pawns[owner] += kPawnAdvance[rank];
    } else if (type != kKing) {
      t.mobility[owner] +=
          kMobilityWeight[type] * (PopCount(a & ~kings) - kMobilityBase[type]);
    }
    if (type != kKing) {
      stacks[owner][num_stacks[owner]++] = {
          square,
          own_counted - own_raw * kPrisonerPercent / 100 +
              prisoners_raw * (kReservePercent - kPrisonerPercent) / 100};
    }
  }

  for (Color c : {kWhite, kBlack}) {
    const Color o = Opponent(c);
    const int king = pos.KingSquare(c);
    // Enemy attacks on the king's zone.
    const Bitboard zone = tables.king[king] | SquareBit(king);
    int units = 0;
    int attackers = 0;
    for (Bitboard tops = b.color[o] & ~kings; tops;) {
      const int square = PopLsb(tops);
      const int hits = PopCount(attacks_from[square] & zone);
      if (hits) {
        units += kKingAttackWeight[TypeOf(pos.Top(square))] * hits;
        ++attackers;
      }
    }
    int danger = std::min(kKingDangerCap, units * units / 2);
    if (attackers < 2) danger /= 2;
    t.king_safety[c] -= danger;
    // Shield on the three squares in front of a king at home.
    const int rank = c == kWhite ? RankOf(king) : 7 - RankOf(king);
    if (rank <= 1) {
      const int front = king + Forward(c);
      for (int df = -1; df <= 1; ++df) {
        const int file = FileOf(king) + df;
        if (file < 0 || file > 7) continue;
        const int square = front + df;
        if (!(b.color[c] & SquareBit(square))) continue;
        t.king_safety[c] +=
            (b.type[kPawn] & SquareBit(square)) ? kShieldPawn : kShieldPiece;
      }
    }
  }

  // Loose stacks of the side to move beyond the most valuable one.
  {
    const Color c = pos.SideToMove();
    const Color o = Opponent(c);
    int total = 0;
    int largest = 0;
    for (int i = 0; i < num_stacks[c]; ++i) {
      const StackInfo& s = stacks[c][i];
      const Bitboard bit = SquareBit(s.square);
      if ((attacks[o] & bit) && !(attacks[c] & bit)) {
        total += s.stake;
        largest = std::max(largest, s.stake);
      }
    }
    t.loose[c] -= (total - largest) * kLoosePercent / 100;
  }

  for (Color c : {kWhite, kBlack}) {
    const Color o = Opponent(c);
    if (t.material[c] - t.material[o] < kMopUpLead ||
        active[o] > kMopUpMaxActive) {
      continue;
    }
    const int their_king = pos.KingSquare(o);
    const int our_king = pos.KingSquare(c);
    const int free_squares =
        PopCount(tables.king[their_king] & ~attacks[c] & ~kings);
    t.mop_up[c] += kMopUpEdge * CentreDistance(their_king) +
                   kMopUpApproach * (14 - KingDistance(their_king, our_king)) +
                   kMopUpCramp * (8 - free_squares);
  }

  if (terms) *terms = t;
  return t.Total(kWhite);
}

int EvaluateForSideToMove(const Position& pos) {
  const int white = EvaluateForWhite(pos);
  const int score = (pos.SideToMove() == kWhite ? white : -white) + kTempo;
  return std::clamp(score, -kMaxHeuristicScore + 1, kMaxHeuristicScore - 1);
}

int TavreliHeuristic::Evaluate(const GameState& state) const {
  return EvaluateForSideToMove(
      static_cast<const TavreliState&>(state).current());
}

void TavreliHeuristic::ClassifyMoves(const GameState& state,
                                     const MoveList& moves,
                                     MoveClass* out) const {
  const Position& pos = static_cast<const TavreliState&>(state).current();
  const Color us = pos.SideToMove();
  const Bitboard theirs = pos.Tops().color[Opponent(us)];
  for (int i = 0; i < moves.size(); ++i) {
    const Move m = moves[i];
    const Piece top = pos.Top(m.from);
    MoveClass c;
    int gain = 0;
    if (theirs & SquareBit(m.to)) {
      gain = StackValue(pos, m.to);
    } else if (IsPawn(top) && FileOf(m.from) != FileOf(m.to)) {
      gain = kPieceValue[kPawn];  // en passant: the passed pawn is taken
    }
    if (IsPawn(top) && RankOf(m.to) == LastRank(us)) {
      gain += kPieceValue[SymbolOf(top)] - kPieceValue[kPawn];
    }
    if (gain > 0) {
      c.noisy = true;
      c.gain = gain;
      // Most valuable stack first, then the least valuable, smallest unit.
      c.order = 1000000 + gain * 16 - Value(top) - 8 * m.count;
    }
    out[i] = c;
  }
}

void TavreliHeuristic::NoisyMoves(const GameState& state, MoveList* noisy,
                                  MoveClass* noisy_classes) const {
  GenerateNoisyCandidates(static_cast<const TavreliState&>(state).current(),
                          noisy);
  ClassifyMoves(state, *noisy, noisy_classes);
  KeepNoisyMoves(noisy, noisy_classes);
}

}  // namespace volkhv::tavreli
