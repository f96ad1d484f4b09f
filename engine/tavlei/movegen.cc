#include "engine/tavlei/movegen.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "engine/game/square.h"
#include "engine/tavlei/play_move.h"

namespace volkhv::tavlei {
namespace {

// Calls visit(from, to) for every legal move, piece by piece in ascending
// square order, while it returns true. Returns false if visit stopped.
template <typename Visit>
bool ForEachMove(const Rules& rules, const Position& p, Visit&& visit) {
  if (p.status != Status::kOngoing) return true;
  return p.pieces[p.side].ForEach([&](int from) {
    const bool king = p.board[from] == kKing;
    for (int dir = 0; dir < kNumDirections; ++dir) {
      const uint8_t* ray = rules.ray[from][dir].data();
      const int length = rules.ray_length[from][dir];
      if (king) {
        const int steps = std::min(length, rules.king_max_steps);
        for (int i = 0; i < steps && p.board[ray[i]] == kEmpty; ++i) {
          if (!visit(from, ray[i])) return false;
        }
        continue;
      }
      for (int i = 0; i < length && p.board[ray[i]] == kEmpty; ++i) {
        const int to = ray[i];
        if (to == rules.throne) {
          if (!rules.others_pass_empty_throne) break;
          continue;
        }
        if (rules.is_corner[to]) continue;
        if (!visit(from, to)) return false;
      }
    }
    return true;
  });
}

}  // namespace

void GenerateMoves(const Rules& rules, const Position& position,
                   MoveList* moves) {
  Move* first = moves->end();
  ForEachMove(rules, position, [moves](int from, int to) {
    moves->push_back(MakeMove(from, to, 1));
    return true;
  });
  // Within one piece the rays come out by direction; order them by `to`.
  std::sort(first, moves->end(), [](Move a, Move b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
}

int CountMoves(const Rules& rules, const Position& position) {
  int count = 0;
  ForEachMove(rules, position, [&count](int, int) {
    ++count;
    return true;
  });
  return count;
}

bool HasMove(const Rules& rules, const Position& position) {
  return !ForEachMove(rules, position, [](int, int) { return false; });
}

std::string IllegalMoveReason(const Rules& rules, const Position& p, int from,
                              int to) {
  const int w = rules.width;
  auto name = [w](int sq) { return SquareName(sq, w); };
  if (p.status == Status::kKingCaptured) {
    return absl::StrCat("the game is over: the ", rules.king_noun,
                        " was captured");
  }
  if (p.status == Status::kKingEscaped) {
    return absl::StrCat("the game is over: the ", rules.king_noun,
                        " reached the ", rules.corner_noun, " ", name(p.king));
  }
  const uint8_t piece = p.board[from];
  if (piece == kEmpty) return absl::StrCat("no piece on ", name(from));
  if (SideOf(piece) != p.side) {
    const char* holder = piece == kAttacker   ? "an attacker"
                         : piece == kDefender ? "a defender"
                                              : rules.king_noun;
    return absl::StrCat(name(from), " holds ", piece == kKing ? "the " : "",
                        holder, " but the ",
                        p.side == kAttackers ? "attackers" : "defenders",
                        " are to move");
  }
  if (from == to) return "from and to are the same square";
  const int df = to % w - from % w;
  const int dr = to / w - from / w;
  if (df != 0 && dr != 0) return "not along a rank or file";
  const bool king = piece == kKing;
  const int distance = std::abs(df) + std::abs(dr);
  const int step = df > 0 ? 1 : df < 0 ? -1 : dr > 0 ? w : -w;
  for (int sq = from + step; sq != to; sq += step) {
    if (p.board[sq] != kEmpty) {
      return absl::StrCat("path blocked at ", name(sq));
    }
    if (sq == rules.throne && !king && !rules.others_pass_empty_throne) {
      return absl::StrCat("only the ", rules.king_noun,
                          " may pass over the throne ", name(sq));
    }
  }
  if (p.board[to] != kEmpty) return absl::StrCat(name(to), " is occupied");
  if (!king && to == rules.throne) {
    return absl::StrCat("only the ", rules.king_noun,
                        " may stand on the throne ", name(to));
  }
  if (!king && rules.is_corner[to]) {
    return absl::StrCat("only the ", rules.king_noun, " may stand on the ",
                        rules.corner_noun, " ", name(to));
  }
  if (king && distance > rules.king_max_steps) {
    return absl::StrCat("the ", rules.king_noun, " may move at most ",
                        rules.king_max_steps, " squares (", kPrinceMaxSteps,
                        ")");
  }
  return "";
}

uint64_t Perft(const Rules& rules, const Position& position, int depth) {
  if (depth <= 0) return 1;
  if (depth == 1) return CountMoves(rules, position);
  uint64_t leaves = 0;
  ForEachMove(rules, position, [&](int from, int to) {
    Position child = position;
    PlayMove(rules, &child, from, to, nullptr);
    leaves += Perft(rules, child, depth - 1);
    return true;
  });
  return leaves;
}

}  // namespace volkhv::tavlei
