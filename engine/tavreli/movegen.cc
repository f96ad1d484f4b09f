#include "engine/tavreli/movegen.h"

#include "engine/game/square.h"
#include "engine/util/strings.h"

namespace volkhv::tavreli {
namespace {

// The piece that tops `square` once the top `count` pieces have left,
// promoted if it is a pawn uncovered on its last rank.
Piece Uncovered(const Piece* stack_bottom_to_top, int height, int count,
                int square) {
  Piece p = stack_bottom_to_top[height - 1 - count];
  if (IsPawn(p) && RankOf(square) == LastRank(ColorOf(p))) p = Promote(p);
  return p;
}

// Where the top piece of `from` may go by its movement (not castling, not en
// passant), for any count.
Bitboard Destinations(const Position& pos, int from, Piece top) {
  const AttackTables& t = Tables();
  const TopBoards& b = pos.Tops();
  const Bitboard occupied = b.Occupied();
  const Bitboard not_king = ~b.type[kKing];
  const Color us = ColorOf(top);
  switch (TypeOf(top)) {
    case kKing:
      return t.king[from] & not_king;
    case kKnight:
      return t.knight[from] & not_king;
    case kRook:
      return RookAttacks(from, occupied) & not_king;
    case kBishop:
      return BishopAttacks(from, occupied) & not_king;
    case kQueen:
      return QueenAttacks(from, occupied) & not_king;
    case kHelgi:
      return (QueenAttacks(from, occupied) | t.knight[from]) & not_king;
    case kPawn: {
      Bitboard dests = t.pawn[us][from] & b.color[Opponent(us)] & not_king;
      if (RankOf(from) == LastRank(us)) return dests;
      const Bitboard empty_or_own = ~b.color[Opponent(us)] & not_king;
      const int one = from + Forward(us);
      if (empty_or_own & SquareBit(one)) {
        dests |= SquareBit(one);
        if (RankOf(from) == SecondRank(us) && pos.Empty(one) &&
            pos.TopNeverMoved(from)) {
          dests |= empty_or_own & SquareBit(one + Forward(us));
        }
      }
      return dests;
    }
  }
  return 0;
}

struct KingContext {
  Color us;
  Color them;
  int king_square;
  bool in_check;
  Bitboard lines;   // queen lines through the king (empty board)
  Bitboard nearby;  // squares from which an uncovered piece could attack
};

KingContext MakeKingContext(const Position& pos) {
  const AttackTables& t = Tables();
  KingContext c;
  c.us = pos.SideToMove();
  c.them = Opponent(c.us);
  c.king_square = pos.KingSquare(c.us);
  c.in_check = AttackedBy(pos.Tops(), c.king_square, c.them);
  c.lines = t.queen_lines[c.king_square];
  c.nearby = c.lines | t.knight[c.king_square];
  return c;
}

// Whether the move leaves the mover's king unattacked. `uncovered` is the
// new top of `from` (ignored when the whole stack moves).
bool KingSafeAfter(const Position& pos, const KingContext& c, int from, int to,
                   bool whole_stack, Piece uncovered, bool en_passant) {
  TopBoards b = pos.Tops();
  const Piece mover = pos.Top(from);
  if (whole_stack) {
    b.Clear(from);
  } else {
    b.Set(from, uncovered);
  }
  if (en_passant) {
    const int pawn_square = to - Forward(c.us);
    if (pos.Height(pawn_square) == 1) {
      b.Clear(pawn_square);
    } else {
      Piece stack[kMaxStackHeight];
      const int h = pos.StackBottomToTop(pawn_square, stack, nullptr);
      b.Set(pawn_square, Uncovered(stack, h, 1, pawn_square));
    }
  }
  b.Set(to, mover);
  const int king = TypeOf(mover) == kKing ? to : c.king_square;
  return !AttackedBy(b, king, c.them);
}

// Collects moves into a list.
class ListSink {
 public:
  explicit ListSink(MoveList* moves) : moves_(moves) {}
  // Which destinations of a top piece `top` of the side to move are wanted,
  // and whether castling is.
  Bitboard Targets(const Position& pos, Piece top) const {
    return ~Bitboard{0};
  }
  static constexpr bool kCastling = true;
  void AddAll(int from, Bitboard dests, int count) {
    while (dests) moves_->push_back(MakeMove(from, PopLsb(dests), count));
  }
  void Add(int from, int to, int count) {
    moves_->push_back(MakeMove(from, to, count));
  }
  bool Done() const { return false; }

 private:
  MoveList* moves_;
};

// Collects the moves a capture or promotion may be: onto an enemy-topped
// square, or a pawn's onto its last rank (en passant is generated apart).
class NoisySink : public ListSink {
 public:
  explicit NoisySink(MoveList* moves) : ListSink(moves) {}
  Bitboard Targets(const Position& pos, Piece top) const {
    const Color us = ColorOf(top);
    Bitboard targets = pos.Tops().color[Opponent(us)];
    if (IsPawn(top)) targets |= kRank1 << (8 * LastRank(us));
    return targets;
  }
  static constexpr bool kCastling = false;
};

// Only counts them.
class CountSink {
 public:
  Bitboard Targets(const Position& pos, Piece top) const {
    return ~Bitboard{0};
  }
  static constexpr bool kCastling = true;
  void AddAll(int from, Bitboard dests, int count) {
    count_ += PopCount(dests);
  }
  void Add(int from, int to, int count) { ++count_; }
  int count() const { return count_; }
  // Only the existence of a move is wanted: stop at the first source square
  // that has one.
  bool Done() const { return stop_at_first_ && count_ > 0; }
  void StopAtFirst() { stop_at_first_ = true; }

 private:
  int count_ = 0;
  bool stop_at_first_ = false;
};

template <class Sink>
void GenerateFromSquare(const Position& pos, const KingContext& c, int from,
                        Sink& sink) {
  const Piece top = pos.Top(from);
  Bitboard dests = Destinations(pos, from, top) & sink.Targets(pos, top);
  if (!dests) return;
  const int height = pos.Height(from);
  Piece stack[kMaxStackHeight];
  if (height > 1) pos.StackBottomToTop(from, stack, nullptr);
  const bool king = TypeOf(top) == kKing;
  for (int count = 1; count <= height; ++count) {
    const bool whole = count == height;
    const Piece uncovered = whole ? 0 : Uncovered(stack, height, count, from);
    bool surely_safe = false;
    if (!king && !c.in_check) {
      // Only the source square changes in a way that can expose the king.
      surely_safe =
          whole ? !(c.lines & SquareBit(from))
                : (ColorOf(uncovered) == c.us || !(c.nearby & SquareBit(from)));
    }
    if (surely_safe) {
      sink.AddAll(from, dests, count);
      continue;
    }
    for (Bitboard d = dests; d;) {
      const int to = PopLsb(d);
      if (KingSafeAfter(pos, c, from, to, whole, uncovered, false)) {
        sink.Add(from, to, count);
      }
    }
  }
}

template <class Sink>
void GenerateEnPassant(const Position& pos, const KingContext& c, Sink& sink) {
  const int ep = pos.EnPassantSquare();
  if (ep == kNoSquare) return;
  const TopBoards& b = pos.Tops();
  Bitboard capturers =
      Tables().pawn[c.them][ep] & b.type[kPawn] & b.color[c.us];
  while (capturers) {
    const int from = PopLsb(capturers);
    const int height = pos.Height(from);
    Piece stack[kMaxStackHeight];
    pos.StackBottomToTop(from, stack, nullptr);
    for (int count = 1; count <= height; ++count) {
      const bool whole = count == height;
      const Piece uncovered = whole ? 0 : Uncovered(stack, height, count, from);
      if (KingSafeAfter(pos, c, from, ep, whole, uncovered, true)) {
        sink.Add(from, ep, count);
      }
    }
  }
}

template <class Sink>
void GenerateCastling(const Position& pos, const KingContext& c, Sink& sink) {
  const uint8_t rights = pos.Castling();
  if (!rights || c.in_check) return;
  const int rank = c.us == kWhite ? 0 : 7;
  const int king_from = MakeSquare(4, rank);
  if (c.king_square != king_from) return;
  const uint8_t kingside = c.us == kWhite ? kWhiteKingside : kBlackKingside;
  const uint8_t queenside = c.us == kWhite ? kWhiteQueenside : kBlackQueenside;
  const TopBoards& b = pos.Tops();
  const Bitboard occupied = b.Occupied();
  auto rook_ready = [&](int square) {
    return pos.Height(square) == 1 && pos.Top(square) == MakePiece(c.us, kRook);
  };
  if ((rights & kingside) && rook_ready(king_from + 3) &&
      !(occupied & (SquareBit(king_from + 1) | SquareBit(king_from + 2))) &&
      !AttackedBy(b, king_from + 1, c.them) &&
      !AttackedBy(b, king_from + 2, c.them)) {
    sink.Add(king_from, king_from + 2, 1);
  }
  if ((rights & queenside) && rook_ready(king_from - 4) &&
      !(occupied & (SquareBit(king_from - 1) | SquareBit(king_from - 2) |
                    SquareBit(king_from - 3))) &&
      !AttackedBy(b, king_from - 1, c.them) &&
      !AttackedBy(b, king_from - 2, c.them)) {
    sink.Add(king_from, king_from - 2, 1);
  }
}

template <class Sink>
void Generate(const Position& pos, Sink& sink) {
  const KingContext c = MakeKingContext(pos);
  for (Bitboard own = pos.Tops().color[c.us]; own;) {
    GenerateFromSquare(pos, c, PopLsb(own), sink);
    if (sink.Done()) return;
  }
  GenerateEnPassant(pos, c, sink);
  if constexpr (Sink::kCastling) GenerateCastling(pos, c, sink);
}

std::string PieceName(Piece p) {
  static constexpr const char* kNames[] = {"King",   "Queen", "Rook", "Bishop",
                                           "Knight", "Helgi", "pawn"};
  std::string name = kNames[TypeOf(p)];
  if (IsPromoted(p)) name = "promoted " + name;
  return name;
}

}  // namespace

void GenerateLegalMoves(const Position& pos, MoveList* moves) {
  moves->clear();
  ListSink sink(moves);
  Generate(pos, sink);
}

void GenerateNoisyCandidates(const Position& pos, MoveList* moves) {
  moves->clear();
  NoisySink sink(moves);
  Generate(pos, sink);
}

int CountLegalMoves(const Position& pos) {
  CountSink sink;
  Generate(pos, sink);
  return sink.count();
}

bool HasLegalMove(const Position& pos) {
  CountSink sink;
  sink.StopAtFirst();
  Generate(pos, sink);
  return sink.count() > 0;
}

bool HasLegalEnPassant(const Position& pos) {
  CountSink sink;
  GenerateEnPassant(pos, MakeKingContext(pos), sink);
  return sink.count() > 0;
}

std::string ExplainIllegal(const Position& pos, Move move) {
  const std::string from = SquareName(move.from, 8);
  const std::string to = SquareName(move.to, 8);
  if (move.from >= kNumSquares || move.to >= kNumSquares) {
    return "square off the board";
  }
  if (pos.Empty(move.from)) return Cat(from, " is empty");
  const Piece top = pos.Top(move.from);
  if (ColorOf(top) != pos.SideToMove()) {
    return Cat("the stack on ", from, " belongs to the opponent");
  }
  if (move.count < 1 || move.count > pos.Height(move.from)) {
    return Cat(from, " holds ", pos.Height(move.from),
               move.count < 1 ? " pieces; take at least one"
                              : Cat(" piece(s), not ", move.count));
  }
  MoveList legal;
  GenerateLegalMoves(pos, &legal);
  if (legal.contains(move)) return "";
  if (move.from == move.to) return "a move must change squares";
  if (!pos.Empty(move.to) && TypeOf(pos.Top(move.to)) == kKing) {
    return Cat("nothing may be placed on the King on ", to);
  }
  const bool reachable =
      (Destinations(pos, move.from, top) & SquareBit(move.to)) != 0 ||
      (IsPawn(top) && move.to == pos.EnPassantSquare() &&
       (Tables().pawn[ColorOf(top)][move.from] & SquareBit(move.to)));
  if (reachable) return "it leaves the King in check";
  if (TypeOf(top) == kKing && RankOf(move.from) == RankOf(move.to) &&
      (move.to - move.from == 2 || move.from - move.to == 2)) {
    return "castling is not allowed here";
  }
  return Cat("the ", PieceName(top), " on ", from, " cannot move to ", to);
}

uint64_t Perft(const Position& pos, int depth) {
  if (depth <= 0) return 1;
  if (depth == 1) return CountLegalMoves(pos);
  MoveList moves;
  GenerateLegalMoves(pos, &moves);
  uint64_t nodes = 0;
  for (Move m : moves) {
    Position child = pos;
    child.Apply(m);
    nodes += Perft(child, depth - 1);
  }
  return nodes;
}

}  // namespace volkhv::tavreli
