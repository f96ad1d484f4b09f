#include "engine/tavlei/immediate_win.h"

#include <algorithm>

#include "engine/tavlei/movegen.h"
#include "engine/tavlei/play_move.h"

namespace volkhv::tavlei {
namespace {

// How far along `dir` the prince/king reaches an exit/refuge over empty
// squares in one move (the index of the corner in rules.ray), or -1.
int OpenCornerLine(const Rules& rules, const Position& p, int dir) {
  const uint8_t* ray = rules.ray[p.king][dir].data();
  const int steps =
      std::min<int>(rules.ray_length[p.king][dir], rules.king_max_steps);
  for (int i = 0; i < steps && p.board[ray[i]] == kEmpty; ++i) {
    if (rules.is_corner[ray[i]]) return i;
  }
  return -1;
}

// The attacker that can move to the empty square `to` from direction `dir`
// (as the move generator lets it: not over the throne in tavlei9), or -1.
int AttackerReaching(const Rules& rules, const Position& p, int to, int dir) {
  const uint8_t* ray = rules.ray[to][dir].data();
  const int length = rules.ray_length[to][dir];
  for (int i = 0; i < length; ++i) {
    const int sq = ray[i];
    if (p.board[sq] == kEmpty) {
      if (sq == rules.throne && !rules.others_pass_empty_throne) return -1;
      continue;
    }
    return p.board[sq] == kAttacker ? sq : -1;
  }
  return -1;
}

// The prince/king's first move onto an exit/refuge along an open line,
// whoever is to move.
Move EscapeMove(const Rules& rules, const Position& p) {
  for (int dir = 0; dir < kNumDirections; ++dir) {
    const int corner = OpenCornerLine(rules, p, dir);
    if (corner >= 0) return MakeMove(p.king, rules.ray[p.king][dir][corner], 1);
  }
  return Move{};
}

// An attacker move onto a square next to the prince/king that captures him.
// Each attacker reaching such a square is played out on a copy to apply the
// capture rules.
Move CaptureMove(const Rules& rules, const Position& p) {
  const int king = p.king;
  for (int side = 0; side < kNumDirections; ++side) {
    const int to = rules.neighbor[king][side];
    if (to == kOffBoard || p.board[to] != kEmpty || to == rules.throne ||
        rules.is_corner[to]) {
      continue;
    }
    for (int dir = 0; dir < kNumDirections; ++dir) {
      const int from = AttackerReaching(rules, p, to, dir);
      if (from < 0) continue;
      Position after = p;
      PlayMove(rules, &after, from, to, nullptr);
      if (after.status == Status::kKingCaptured) return MakeMove(from, to, 1);
    }
  }
  return Move{};
}

// Whether some attacker reply to a position with the defenders' prince/king
// on an open line to an exit/refuge (attackers to move) keeps him from
// reaching one next move: a reply that captures him, or, when exactly one
// line is open, one that puts an attacker on it. No single move closes two
// lines (they lie on opposite sides of him), and an attacker leaving a line
// opens none: he cannot reach the other side of the prince along it.
bool EscapeStoppable(const Rules& rules, const Position& p) {
  if (!CaptureMove(rules, p).IsNull()) return true;
  int open_dir = -1;
  int open_length = 0;
  for (int dir = 0; dir < kNumDirections; ++dir) {
    const int corner = OpenCornerLine(rules, p, dir);
    if (corner < 0) continue;
    if (open_dir >= 0) return false;  // two open lines
    open_dir = dir;
    open_length = corner;
  }
  if (open_dir < 0) return true;  // no escape to stop
  const uint8_t* line = rules.ray[p.king][open_dir].data();
  for (int i = 0; i < open_length; ++i) {
    for (int dir = 0; dir < kNumDirections; ++dir) {
      if (AttackerReaching(rules, p, line[i], dir) >= 0) return true;
    }
  }
  return false;
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
  for (int dir = 0; dir < kNumDirections; ++dir) {
    const uint8_t* ray = rules.ray[king][dir].data();
    const int steps =
        std::min<int>(rules.ray_length[king][dir], rules.king_max_steps);
    for (int i = 0; i < steps && position.board[ray[i]] == kEmpty; ++i) {
      if (!rules.on_corner_line[ray[i]]) continue;
      Position threat = position;
      PlayMove(rules, &threat, king, ray[i], nullptr);
      if (threat.status == Status::kOngoing &&
          !EscapeStoppable(rules, threat)) {
        return MakeMove(king, ray[i], 1);
      }
    }
  }
  return Move{};
}

Move FindEscapeInFive(const Rules& rules, const Position& position) {
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
          !CaptureMove(rules, threat).IsNull()) {
        continue;
      }
      // Only a move that threatens something is tried against every reply:
      // with the attackers passing, the prince could win in one or three.
      Position passed = threat;
      passed.side = kDefenders;
      if (FindImmediateWin(rules, passed).IsNull() &&
          FindUnstoppableEscape(rules, passed).IsNull()) {
        continue;
      }
      replies.clear();
      GenerateMoves(rules, threat, &replies);
      bool refuted = false;
      for (int r = 0; r < replies.size() && !refuted; ++r) {
        Position after = threat;
        PlayMove(rules, &after, replies[r].from, replies[r].to, nullptr);
        refuted = FindImmediateWin(rules, after).IsNull() &&
                  FindUnstoppableEscape(rules, after).IsNull();
      }
      if (!refuted) return MakeMove(king, ray[i], 1);
    }
  }
  return Move{};
}

int MarkMovesAllowingQuickWin(const Rules& rules, const Position& position,
                              const MoveList& moves, bool threats,
                              std::vector<uint8_t>* win_plies) {
  win_plies->assign(moves.size(), 0);
  int count = 0;
  for (int i = 0; i < moves.size(); ++i) {
    Position after = position;
    PlayMove(rules, &after, moves[i].from, moves[i].to, nullptr);
    if (!FindImmediateWin(rules, after).IsNull()) {
      (*win_plies)[i] = 1;
    } else if (threats && !FindUnstoppableEscape(rules, after).IsNull()) {
      (*win_plies)[i] = 3;
    }
    count += (*win_plies)[i] != 0;
  }
  return count;
}

}  // namespace volkhv::tavlei
