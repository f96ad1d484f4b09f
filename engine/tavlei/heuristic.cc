#include "engine/tavlei/heuristic.h"

#include <algorithm>
#include <array>

#include "engine/tavlei/movegen.h"
#include "engine/tavlei/play_move.h"
#include "engine/tavlei/tavlei_state.h"

namespace volkhv::tavlei {
namespace {

// The king's routes, for the defenders (the evaluation subtracts them):
// - an open line with the defenders to move: the next move wins;
// - two open lines with the attackers to move, or one that no attacker can
//   reach: one move cannot close them;
// - one open line with the attackers to move: they must close it now;
// - two or three king moves from a corner with the board as it stands.
constexpr int kEscapeNow = 5000;
constexpr int kEscapeDouble = 3000;
constexpr int kEscapeSingle = 200;
constexpr int kEscapeTwoMoves = 90;
constexpr int kEscapeThreeMoves = 30;
// Per square the king can move to.
constexpr int kKingFreedom = 4;
// By the number of the king's four sides that are hostile to him (attackers,
// and the squares the variant lets complete a capture: the throne, the edge).
constexpr std::array<int, 5> kPressure = {0, 25, 60, 130, 250};
// Per legal move of a side.
constexpr int kMobility = 1;
// Bonus of the side to move.
constexpr int kTempo = 10;

// Whether `sq` completes a capture of the king standing next to it, besides
// an attacker (the rules page: tavlei9 counts the throne next to it, tavlei11
// the throne and the edge).
bool HostileSideOfKing(const Rules& rules, const Position& position, int sq) {
  if (sq == kOffBoard) return rules.variant == Variant::kTavlei11;
  if (position.board[sq] == kAttacker) return true;
  if (sq != rules.throne) return false;
  return rules.variant == Variant::kTavlei11 ||
         rules.next_to_throne[position.king];
}

// Whether an attacker can move onto the empty square `sq` in one move.
bool AttackerReaches(const Rules& rules, const Position& position, int sq) {
  if (sq == rules.throne || rules.is_corner[sq]) return false;
  for (int dir = 0; dir < kNumDirections; ++dir) {
    for (int i = 0; i < rules.ray_length[sq][dir]; ++i) {
      const int t = rules.ray[sq][dir][i];
      const uint8_t piece = position.board[t];
      if (piece == kAttacker) return true;
      if (piece != kEmpty) break;
      if (t == rules.throne && !rules.others_pass_empty_throne) break;
    }
  }
  return false;
}

int CountMovesOf(const Rules& rules, const Position& position, int side) {
  if (position.side == side) return CountMoves(rules, position);
  Position other = position;
  other.side = static_cast<uint8_t>(side);
  return CountMoves(rules, other);
}

}  // namespace

KingRoutes FindKingRoutes(const Rules& rules, const Position& position) {
  KingRoutes routes;
  const int king = position.king;
  if (king == kOffBoard) {
    routes.moves = KingRoutes::kFar;
    return routes;
  }
  // Squares the king reaches by moves of at most king_max_steps through
  // empty squares; his own square counts as empty once he has left it.
  auto empty = [&](int sq) {
    return sq == king || position.board[sq] == kEmpty;
  };
  for (int dir = 0; dir < kNumDirections; ++dir) {
    const int steps =
        std::min<int>(rules.ray_length[king][dir], rules.king_max_steps);
    bool blockable = false;
    for (int i = 0; i < steps; ++i) {
      const int sq = rules.ray[king][dir][i];
      if (!empty(sq)) break;
      if (rules.is_corner[sq]) {
        ++routes.open_lines;
        if (!blockable) ++routes.unstoppable_lines;
        break;
      }
      blockable = blockable || AttackerReaches(rules, position, sq);
    }
  }
  if (routes.open_lines > 0) {
    routes.moves = 1;
    return routes;
  }
  std::array<bool, kMaxSquares> seen{};
  std::array<uint8_t, kMaxSquares> frontier, next;
  int frontier_size = 1;
  frontier[0] = static_cast<uint8_t>(king);
  seen[king] = true;
  for (int moves = 1; moves < KingRoutes::kFar; ++moves) {
    int next_size = 0;
    for (int f = 0; f < frontier_size; ++f) {
      const int from = frontier[f];
      for (int dir = 0; dir < kNumDirections; ++dir) {
        const int steps =
            std::min<int>(rules.ray_length[from][dir], rules.king_max_steps);
        for (int i = 0; i < steps; ++i) {
          const int sq = rules.ray[from][dir][i];
          if (!empty(sq)) break;
          if (rules.is_corner[sq]) {
            routes.moves = moves;
            return routes;
          }
          if (!seen[sq]) {
            seen[sq] = true;
            next[next_size++] = static_cast<uint8_t>(sq);
          }
        }
      }
    }
    frontier = next;
    frontier_size = next_size;
  }
  routes.moves = KingRoutes::kFar;
  return routes;
}

int EvaluateForAttackers(const Rules& rules, const Position& position,
                         TavleiEvalTerms* terms) {
  TavleiEvalTerms t;
  const int defenders =
      position.pieces[kDefenders].Count() - (position.king != kOffBoard);
  t.material = kAttackerValue * position.pieces[kAttackers].Count() -
               kDefenderValue * defenders;
  const int king = position.king;
  if (king != kOffBoard) {
    const KingRoutes routes = FindKingRoutes(rules, position);
    int escape = 0;
    if (routes.open_lines > 0 && position.side == kDefenders) {
      escape = kEscapeNow;
    } else if (routes.open_lines >= 2 || routes.unstoppable_lines > 0) {
      escape = kEscapeDouble;
    } else if (routes.open_lines == 1) {
      escape = kEscapeSingle;
    } else if (routes.moves == 2) {
      escape = kEscapeTwoMoves;
    } else if (routes.moves == 3) {
      escape = kEscapeThreeMoves;
    }
    t.escape = -escape;

    int freedom = 0;
    for (int dir = 0; dir < kNumDirections; ++dir) {
      const int steps =
          std::min<int>(rules.ray_length[king][dir], rules.king_max_steps);
      for (int i = 0; i < steps; ++i) {
        if (position.board[rules.ray[king][dir][i]] != kEmpty) break;
        ++freedom;
      }
    }
    t.freedom = -kKingFreedom * freedom;

    int hostile = 0;
    for (int dir = 0; dir < kNumDirections; ++dir) {
      hostile += HostileSideOfKing(rules, position, rules.neighbor[king][dir]);
    }
    t.pressure = kPressure[hostile];
  }
  t.mobility = kMobility * (CountMovesOf(rules, position, kAttackers) -
                            CountMovesOf(rules, position, kDefenders));
  if (terms) *terms = t;
  return t.Total();
}

int TavleiHeuristic::Evaluate(const GameState& state) const {
  const auto& s = static_cast<const TavleiState&>(state);
  const int attackers = EvaluateForAttackers(s.rules(), s.position());
  const int score =
      (s.position().side == kAttackers ? attackers : -attackers) + kTempo;
  return std::clamp(score, -kMaxHeuristicScore + 1, kMaxHeuristicScore - 1);
}

void TavleiHeuristic::ClassifyMoves(const GameState& state,
                                    const MoveList& moves,
                                    MoveClass* out) const {
  const auto& s = static_cast<const TavleiState&>(state);
  const Rules& rules = s.rules();
  const Position& position = s.position();
  const int pieces = position.PieceCount();
  for (int i = 0; i < moves.size(); ++i) {
    const Move m = moves[i];
    MoveClass c;
    if (position.board[m.from] == kKing && rules.is_corner[m.to]) {
      c.noisy = true;
      c.gain = 2 * kMaxHeuristicScore;  // wins the game
      c.order = 3000000;
    } else {
      Position after = position;
      PlayMove(rules, &after, m.from, m.to, nullptr);
      const int taken = pieces - after.PieceCount();
      if (after.status == Status::kKingCaptured) {
        c.noisy = true;
        c.gain = 2 * kMaxHeuristicScore;
        c.order = 2000000;
      } else if (taken > 0) {
        c.noisy = true;
        c.gain = taken * (position.side == kAttackers ? kDefenderValue
                                                      : kAttackerValue);
        c.order = 1000000 + c.gain;
      }
    }
    out[i] = c;
  }
}

}  // namespace volkhv::tavlei
