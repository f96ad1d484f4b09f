#include "engine/tavlei/immediate_win.h"

#include <algorithm>

#include "engine/tavlei/movegen.h"
#include "engine/tavlei/play_move.h"

namespace volkhv::tavlei {
namespace {

// The prince/king's first move onto an exit/refuge along an open line,
// whoever is to move.
Move EscapeMove(const Rules& rules, const Position& p) {
  const int king = p.king;
  for (int dir = 0; dir < kNumDirections; ++dir) {
    const uint8_t* ray = rules.ray[king][dir].data();
    const int steps =
        std::min<int>(rules.ray_length[king][dir], rules.king_max_steps);
    for (int i = 0; i < steps && p.board[ray[i]] == kEmpty; ++i) {
      if (rules.is_corner[ray[i]]) return MakeMove(king, ray[i], 1);
    }
  }
  return Move{};
}

// An attacker move onto a square next to the prince/king that captures him.
// Each candidate is an attacker that reaches the square along an open line
// (as the move generator lets it: not over the throne in tavlei9), played
// out on a copy to apply the capture rules.
Move CaptureMove(const Rules& rules, const Position& p) {
  const int king = p.king;
  for (int side = 0; side < kNumDirections; ++side) {
    const int to = rules.neighbor[king][side];
    if (to == kOffBoard || p.board[to] != kEmpty || to == rules.throne ||
        rules.is_corner[to]) {
      continue;
    }
    for (int dir = 0; dir < kNumDirections; ++dir) {
      const uint8_t* ray = rules.ray[to][dir].data();
      const int length = rules.ray_length[to][dir];
      for (int i = 0; i < length; ++i) {
        const int sq = ray[i];
        if (p.board[sq] == kEmpty) {
          if (sq == rules.throne && !rules.others_pass_empty_throne) break;
          continue;
        }
        if (p.board[sq] == kAttacker) {
          Position after = p;
          PlayMove(rules, &after, sq, to, nullptr);
          if (after.status == Status::kKingCaptured) {
            return MakeMove(sq, to, 1);
          }
        }
        break;
      }
    }
  }
  return Move{};
}

}  // namespace

Move FindImmediateWin(const Rules& rules, const Position& position) {
  if (position.status != Status::kOngoing || position.king == kOffBoard) {
    return Move{};
  }
  return position.side == kDefenders ? EscapeMove(rules, position)
                                     : CaptureMove(rules, position);
}

Move FindUnstoppableEscape(const Rules& rules, const Position& position) {
  if (position.status != Status::kOngoing || position.king == kOffBoard ||
      position.side != kDefenders) {
    return Move{};
  }
  const int king = position.king;
  MoveList replies;
  for (int dir = 0; dir < kNumDirections; ++dir) {
    const uint8_t* ray = rules.ray[king][dir].data();
    const int steps =
        std::min<int>(rules.ray_length[king][dir], rules.king_max_steps);
    for (int i = 0; i < steps && position.board[ray[i]] == kEmpty; ++i) {
      Position threat = position;
      PlayMove(rules, &threat, king, ray[i], nullptr);
      if (threat.status != Status::kOngoing ||
          EscapeMove(rules, threat).IsNull()) {
        continue;
      }
      replies.clear();
      GenerateMoves(rules, threat, &replies);
      bool stoppable = false;
      for (const Move reply : replies) {
        Position after = threat;
        PlayMove(rules, &after, reply.from, reply.to, nullptr);
        if (after.status == Status::kKingCaptured ||
            EscapeMove(rules, after).IsNull()) {
          stoppable = true;
          break;
        }
      }
      if (!stoppable) return MakeMove(king, ray[i], 1);
    }
  }
  return Move{};
}

int MarkMovesAllowingImmediateWin(const Rules& rules, const Position& position,
                                  const MoveList& moves,
                                  std::vector<uint8_t>* allows) {
  allows->assign(moves.size(), 0);
  int count = 0;
  for (int i = 0; i < moves.size(); ++i) {
    Position after = position;
    PlayMove(rules, &after, moves[i].from, moves[i].to, nullptr);
    (*allows)[i] = !FindImmediateWin(rules, after).IsNull();
    count += (*allows)[i];
  }
  return count;
}

}  // namespace volkhv::tavlei
