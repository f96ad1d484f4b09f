#include "engine/tavlei/play_move.h"

#include <utility>

namespace volkhv::tavlei {
namespace {

// Whether `sq` is a capture partner against an ordinary piece of
// `victim_side`: an enemy piece (the king included), an exit/refuge, or the
// empty throne. The throne with the king on it is covered by the first case:
// hostile to attackers, not to defenders.
bool HostileToOrdinary(const Rules& rules, const Position& position, int sq,
                       int victim_side) {
  const uint8_t piece = position.board[sq];
  if (piece != kEmpty) return SideOf(piece) != victim_side;
  return rules.is_corner[sq] || sq == rules.throne;
}

// Whether the king on `king`, just reached by an attacker arriving from the
// side opposite to `dir`, is captured.
bool KingCaptured(const Rules& rules, const Position& position, int king,
                  int dir) {
  if (rules.variant == Variant::kTavlei11) {
    // Four attackers, or three and the throne or the edge; a refuge never
    // counts, so a king next to one is safe. Only a corner, where no king
    // stands in an ongoing game, touches two of edge and throne.
    for (int d = 0; d < kNumDirections; ++d) {
      const int nb = rules.neighbor[king][d];
      if (nb != kOffBoard && nb != rules.throne &&
          position.board[nb] != kAttacker) {
        return false;
      }
    }
    return true;
  }
  if (king == rules.throne || rules.next_to_throne[king]) {
    // On the throne: four attackers; next to it: the three other sides.
    for (int d = 0; d < kNumDirections; ++d) {
      const int nb = rules.neighbor[king][d];
      if (nb != rules.throne && position.board[nb] != kAttacker) return false;
    }
    return true;
  }
  const int far = rules.neighbor[king][dir];
  if (far == kOffBoard) return false;
  return position.board[far] == kAttacker ||
         (position.board[far] == kEmpty && rules.is_corner[far]);
}

}  // namespace

void PlayMove(const Rules& rules, Position* position, int from, int to,
              Captures* captures) {
  Position& p = *position;
  const uint8_t piece = p.board[from];
  const int mover_side = p.side;
  p.Remove(from);
  p.Put(to, piece);
  if (piece == kKing && rules.is_corner[to]) p.status = Status::kKingEscaped;

  Captures local;
  Captures& taken = captures != nullptr ? *captures : local;
  taken.count = 0;
  for (int dir = 0; dir < kNumDirections; ++dir) {
    const int victim_sq = rules.neighbor[to][dir];
    if (victim_sq == kOffBoard) continue;
    const uint8_t victim = p.board[victim_sq];
    if (victim == kEmpty || SideOf(victim) == mover_side) continue;
    bool captured;
    if (victim == kKing) {
      captured = KingCaptured(rules, p, victim_sq, dir);
    } else {
      const int far = rules.neighbor[victim_sq][dir];
      captured =
          far != kOffBoard && HostileToOrdinary(rules, p, far, SideOf(victim));
    }
    if (!captured) continue;
    // Removing one victim cannot change another's verdict: victims are
    // orthogonal neighbours of `to`, never of each other or of the king.
    p.Remove(victim_sq);
    if (victim == kKing) p.status = Status::kKingCaptured;
    taken.squares[taken.count++] = static_cast<uint8_t>(victim_sq);
  }
  for (int i = 1; i < taken.count; ++i) {
    for (int j = i; j > 0 && taken.squares[j - 1] > taken.squares[j]; --j) {
      std::swap(taken.squares[j - 1], taken.squares[j]);
    }
  }
  p.FlipSide();
  ++p.ply;
}

}  // namespace volkhv::tavlei
