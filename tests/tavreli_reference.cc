#include "tests/tavreli_reference.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace volkhv::tavreli_reference {
namespace {

// Stops the test binary on input the reference does not understand. (assert
// is compiled out in Release builds, where these tests run.)
void Require(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "tavreli_reference: %s\n", what.c_str());
  std::abort();
}

int FileOf(int square) { return square % 8; }
int RankOf(int square) { return square / 8; }
int SquareAt(int file, int rank) { return rank * 8 + file; }
bool OnBoard(int file, int rank) {
  return file >= 0 && file < 8 && rank >= 0 && rank < 8;
}

// The rank (0-7) on which a pawn of this colour promotes.
int LastRankOf(bool black) { return black ? 0 : 7; }
// A pawn's own second rank (0-7).
int SecondRankOf(bool black) { return black ? 6 : 1; }
// +1 for White (towards rank 8), -1 for Black.
int ForwardOf(bool black) { return black ? -1 : 1; }

const RefPiece* TopOf(const RefPosition& pos, int square) {
  const std::vector<RefPiece>& stack = pos.stacks[square];
  return stack.empty() ? nullptr : &stack.back();
}

bool KingTopped(const RefPosition& pos, int square) {
  const RefPiece* top = TopOf(pos, square);
  return top != nullptr && top->kind == 'K';
}

constexpr int kKnightSteps[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                    {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
constexpr int kKingSteps[8][2] = {{1, 0},  {1, 1},   {0, 1},  {-1, 1},
                                  {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
constexpr int kRookDirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
constexpr int kBishopDirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

bool MovesLikeRook(char m) { return m == 'R' || m == 'Q' || m == 'H'; }
bool MovesLikeBishop(char m) { return m == 'B' || m == 'Q' || m == 'H'; }
bool MovesLikeKnight(char m) { return m == 'N' || m == 'H'; }

// ---- Attacks (rules page section 8), written separately from the move
// generator on purpose: a geometric test of one piece against one square.

// Whether every square strictly between a and b (on one line) is empty.
bool LineBetweenEmpty(const RefPosition& pos, int a, int b) {
  const int df = FileOf(b) - FileOf(a);
  const int dr = RankOf(b) - RankOf(a);
  const int sf = (df > 0) - (df < 0);
  const int sr = (dr > 0) - (dr < 0);
  int f = FileOf(a) + sf;
  int r = RankOf(a) + sr;
  while (SquareAt(f, r) != b) {
    if (!pos.stacks[SquareAt(f, r)].empty()) return false;
    f += sf;
    r += sr;
  }
  return true;
}

// Whether the top piece of `from` could capture onto `target` by its
// movement, whatever stands on `target`.
bool TopHits(const RefPosition& pos, int from, int target) {
  const RefPiece& piece = pos.stacks[from].back();
  const int df = FileOf(target) - FileOf(from);
  const int dr = RankOf(target) - RankOf(from);
  if (df == 0 && dr == 0) return false;
  const char m = piece.MovesAs();
  if (m == 'P') {
    return dr == ForwardOf(piece.black) && (df == 1 || df == -1);
  }
  if (m == 'K') return std::abs(df) <= 1 && std::abs(dr) <= 1;
  if (MovesLikeKnight(m)) {
    if ((std::abs(df) == 1 && std::abs(dr) == 2) ||
        (std::abs(df) == 2 && std::abs(dr) == 1)) {
      return true;
    }
  }
  const bool straight = df == 0 || dr == 0;
  const bool diagonal = std::abs(df) == std::abs(dr);
  if ((straight && MovesLikeRook(m)) || (diagonal && MovesLikeBishop(m))) {
    return LineBetweenEmpty(pos, from, target);
  }
  return false;
}

// ---- TFEN pieces.

char Cased(char upper, bool black) {
  return black ? static_cast<char>(std::tolower(upper)) : upper;
}

std::string PieceText(const RefPiece& p, int square) {
  std::string out;
  if (p.kind == 'P' && p.promoted) {
    out += '+';
    out += Cased(p.symbol, p.black);
  } else if (p.kind == 'P') {
    out += Cased('P', p.black);
    out += Cased(p.symbol, p.black);
    if (p.moved && RankOf(square) == SecondRankOf(p.black)) out += '~';
  } else {
    out += Cased(p.kind, p.black);
  }
  return out;
}

bool IsSymbol(char upper) {
  return upper == 'R' || upper == 'N' || upper == 'B' || upper == 'Q' ||
         upper == 'H';
}

// Parses one piece token at text[*i]; advances *i.
RefPiece ParsePiece(const std::string& text, size_t* i, int square) {
  Require(*i < text.size(), "piece token expected: " + text);
  const char c = text[(*i)++];
  RefPiece p;
  if (c == '+') {
    Require(*i < text.size(), "promoted piece letter expected: " + text);
    const char s = text[(*i)++];
    const char upper = static_cast<char>(std::toupper(s));
    Require(IsSymbol(upper), "bad promoted piece: " + text);
    p.black = std::islower(s) != 0;
    p.kind = 'P';
    p.symbol = upper;
    p.promoted = true;
    p.moved = true;
    return p;
  }
  const char upper = static_cast<char>(std::toupper(c));
  p.black = std::islower(c) != 0;
  if (upper == 'P') {
    Require(*i < text.size(), "pawn symbol expected: " + text);
    const char s = text[(*i)++];
    Require(IsSymbol(static_cast<char>(std::toupper(s))) &&
                (std::islower(s) != 0) == p.black,
            "bad pawn symbol: " + text);
    p.kind = 'P';
    p.symbol = static_cast<char>(std::toupper(s));
    bool tilde = false;
    if (*i < text.size() && text[*i] == '~') {
      tilde = true;
      ++*i;
    }
    const bool on_second = RankOf(square) == SecondRankOf(p.black);
    Require(!tilde || on_second, "~ off the second rank: " + text);
    // A pawn off its own second rank has necessarily moved.
    p.moved = tilde || !on_second;
    return p;
  }
  Require(upper == 'K' || upper == 'Q' || upper == 'R' || upper == 'B' ||
              upper == 'N',
          "unknown piece letter: " + text);
  p.kind = upper;
  return p;
}

std::vector<std::string> SplitSpaces(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

int ParseSquareName(const std::string& s) {
  Require(
      s.size() == 2 && s[0] >= 'a' && s[0] <= 'h' && s[1] >= '1' && s[1] <= '8',
      "bad square: " + s);
  return SquareAt(s[0] - 'a', s[1] - '1');
}

int ParseNumber(const std::string& s) {
  Require(!s.empty() && s.size() < 7, "bad number: " + s);
  int n = 0;
  for (char c : s) {
    Require(c >= '0' && c <= '9', "bad number: " + s);
    n = n * 10 + (c - '0');
  }
  return n;
}

// ---- Moves.

// Adds `to` for every k of the stack on `from`.
void AddAllCounts(const RefPosition& pos, int from, int to,
                  std::vector<RefMove>* out) {
  const int height = static_cast<int>(pos.stacks[from].size());
  for (int k = 1; k <= height; ++k) out->push_back({from, to, k});
}

// Destinations of the top piece of `from` by its movement (no castling, no
// en passant). Independent of k.
std::vector<int> Destinations(const RefPosition& pos, int from) {
  const RefPiece& piece = pos.stacks[from].back();
  const int f = FileOf(from);
  const int r = RankOf(from);
  std::vector<int> out;
  const char m = piece.MovesAs();
  auto enemy_top = [&](int sq) {
    const RefPiece* t = TopOf(pos, sq);
    return t != nullptr && t->black != piece.black;
  };
  auto own_top = [&](int sq) {
    const RefPiece* t = TopOf(pos, sq);
    return t != nullptr && t->black == piece.black;
  };
  if (m == 'P') {
    const int dir = ForwardOf(piece.black);
    // One step forward: empty, or own non-king top.
    if (OnBoard(f, r + dir)) {
      const int one = SquareAt(f, r + dir);
      const bool one_empty = pos.stacks[one].empty();
      if (one_empty || (own_top(one) && !KingTopped(pos, one))) {
        out.push_back(one);
      }
      // Double step: never moved, passed square empty, destination empty or
      // own non-king top.
      if (!piece.moved && one_empty && OnBoard(f, r + 2 * dir)) {
        const int two = SquareAt(f, r + 2 * dir);
        if (pos.stacks[two].empty() ||
            (own_top(two) && !KingTopped(pos, two))) {
          out.push_back(two);
        }
      }
    }
    // Diagonal captures onto enemy non-king tops.
    for (int df : {-1, 1}) {
      if (!OnBoard(f + df, r + dir)) continue;
      const int sq = SquareAt(f + df, r + dir);
      if (enemy_top(sq) && !KingTopped(pos, sq)) out.push_back(sq);
    }
    return out;
  }
  if (m == 'K') {
    for (const auto& s : kKingSteps) {
      if (!OnBoard(f + s[0], r + s[1])) continue;
      const int sq = SquareAt(f + s[0], r + s[1]);
      if (!KingTopped(pos, sq)) out.push_back(sq);
    }
    return out;
  }
  if (MovesLikeKnight(m)) {
    for (const auto& s : kKnightSteps) {
      if (!OnBoard(f + s[0], r + s[1])) continue;
      const int sq = SquareAt(f + s[0], r + s[1]);
      if (!KingTopped(pos, sq)) out.push_back(sq);
    }
  }
  auto slide = [&](const int dir[2]) {
    int ff = f + dir[0];
    int rr = r + dir[1];
    while (OnBoard(ff, rr)) {
      const int sq = SquareAt(ff, rr);
      if (pos.stacks[sq].empty()) {
        out.push_back(sq);
      } else {
        if (!KingTopped(pos, sq)) out.push_back(sq);
        break;
      }
      ff += dir[0];
      rr += dir[1];
    }
  };
  if (MovesLikeRook(m)) {
    for (const auto& d : kRookDirs) slide(d);
  }
  if (MovesLikeBishop(m)) {
    for (const auto& d : kBishopDirs) slide(d);
  }
  return out;
}

// Castling moves for the side to move (rules page section 5).
void AddCastling(const RefPosition& pos, std::vector<RefMove>* out) {
  const bool black = pos.black_to_move;
  const int rank = black ? 7 : 0;
  const int king = SquareAt(4, rank);
  const RefPiece* king_top = TopOf(pos, king);
  if (king_top == nullptr || king_top->kind != 'K' ||
      king_top->black != black || pos.stacks[king].size() != 1) {
    return;
  }
  if (Attacked(pos, king, !black)) return;  // not out of check
  struct Side {
    int right;
    int rook_file;
    std::vector<int> between_files;
    int cross_file;  // the square the king passes (and the rook lands on)
    int land_file;
  };
  const Side sides[2] = {
      {black ? kBlackKingside : kWhiteKingside, 7, {5, 6}, 5, 6},
      {black ? kBlackQueenside : kWhiteQueenside, 0, {1, 2, 3}, 3, 2},
  };
  for (const Side& side : sides) {
    if (!pos.castling[side.right]) continue;
    const int rook = SquareAt(side.rook_file, rank);
    const RefPiece* rook_top = TopOf(pos, rook);
    // The rook must stand alone (never moved, so it is the bottom piece; and
    // it must be on top).
    if (rook_top == nullptr || pos.stacks[rook].size() != 1 ||
        rook_top->kind != 'R' || rook_top->black != black) {
      continue;
    }
    bool clear = true;
    for (int file : side.between_files) {
      if (!pos.stacks[SquareAt(file, rank)].empty()) clear = false;
    }
    if (!clear) continue;
    if (Attacked(pos, SquareAt(side.cross_file, rank), !black)) continue;
    if (Attacked(pos, SquareAt(side.land_file, rank), !black)) continue;
    out->push_back({king, SquareAt(side.land_file, rank), 1});
  }
}

bool IsCastling(const RefPosition& pos, const RefMove& move) {
  const RefPiece* top = TopOf(pos, move.from);
  return top != nullptr && top->kind == 'K' &&
         std::abs(FileOf(move.to) - FileOf(move.from)) == 2;
}

bool IsEnPassant(const RefPosition& pos, const RefMove& move) {
  const RefPiece* top = TopOf(pos, move.from);
  return top != nullptr && top->IsUnpromotedPawn() &&
         move.to == pos.ep_square && FileOf(move.to) != FileOf(move.from);
}

}  // namespace

std::string SquareName(int square) {
  std::string s;
  s += static_cast<char>('a' + FileOf(square));
  s += static_cast<char>('1' + RankOf(square));
  return s;
}

RefPosition ParseTfen(const std::string& tfen) {
  const std::vector<std::string> fields = SplitSpaces(tfen);
  Require(fields.size() == 6, "TFEN needs six fields: " + tfen);
  RefPosition pos;
  // Board.
  std::vector<std::string> ranks;
  {
    std::string cur;
    for (char c : fields[0]) {
      if (c == '/') {
        ranks.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    ranks.push_back(cur);
  }
  Require(ranks.size() == 8, "TFEN needs eight ranks: " + tfen);
  for (int i = 0; i < 8; ++i) {
    const int rank = 7 - i;
    const std::string& text = ranks[i];
    int file = 0;
    size_t j = 0;
    while (j < text.size()) {
      const char c = text[j];
      if (c >= '1' && c <= '8') {
        file += c - '0';
        ++j;
        continue;
      }
      Require(file < 8, "rank too long: " + tfen);
      const int square = SquareAt(file, rank);
      if (c == '(') {
        ++j;
        while (j < text.size() && text[j] != ')') {
          pos.stacks[square].push_back(ParsePiece(text, &j, square));
        }
        Require(j < text.size(), "unclosed stack: " + tfen);
        ++j;  // ')'
        Require(pos.stacks[square].size() >= 2, "short stack: " + tfen);
      } else {
        pos.stacks[square].push_back(ParsePiece(text, &j, square));
      }
      ++file;
    }
    Require(file == 8, "rank length: " + tfen);
  }
  // Side.
  Require(fields[1] == "w" || fields[1] == "b", "bad side: " + tfen);
  pos.black_to_move = fields[1] == "b";
  // Castling.
  if (fields[2] != "-") {
    for (char c : fields[2]) {
      const std::string letters = "KQkq";
      const size_t idx = letters.find(c);
      Require(idx != std::string::npos, "bad castling: " + tfen);
      pos.castling[idx] = true;
    }
  }
  // En passant.
  pos.ep_square = fields[3] == "-" ? -1 : ParseSquareName(fields[3]);
  pos.halfmove = ParseNumber(fields[4]);
  pos.fullmove = ParseNumber(fields[5]);
  return pos;
}

std::string WriteTfen(const RefPosition& pos) {
  std::string out;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      const int square = SquareAt(file, rank);
      const std::vector<RefPiece>& stack = pos.stacks[square];
      if (stack.empty()) {
        ++empty;
        continue;
      }
      if (empty > 0) out += static_cast<char>('0' + empty);
      empty = 0;
      if (stack.size() == 1) {
        out += PieceText(stack[0], square);
      } else {
        out += '(';
        for (const RefPiece& p : stack) out += PieceText(p, square);
        out += ')';
      }
    }
    if (empty > 0) out += static_cast<char>('0' + empty);
    if (rank > 0) out += '/';
  }
  out += pos.black_to_move ? " b " : " w ";
  std::string castling;
  const char letters[4] = {'K', 'Q', 'k', 'q'};
  for (int i = 0; i < 4; ++i) {
    if (pos.castling[i]) castling += letters[i];
  }
  out += castling.empty() ? "-" : castling;
  out += ' ';
  out += pos.ep_square < 0 ? "-" : SquareName(pos.ep_square);
  out += ' ';
  out += std::to_string(pos.halfmove);
  out += ' ';
  out += std::to_string(pos.fullmove);
  return out;
}

bool Attacked(const RefPosition& pos, int square, bool by_black) {
  for (int from = 0; from < 64; ++from) {
    const RefPiece* top = TopOf(pos, from);
    if (top == nullptr || top->black != by_black) continue;
    if (TopHits(pos, from, square)) return true;
  }
  return false;
}

int KingSquare(const RefPosition& pos, bool black) {
  for (int sq = 0; sq < 64; ++sq) {
    for (const RefPiece& p : pos.stacks[sq]) {
      if (p.kind == 'K' && p.black == black) return sq;
    }
  }
  return -1;
}

bool InCheck(const RefPosition& pos) {
  const int king = KingSquare(pos, pos.black_to_move);
  Require(king >= 0, "no king of the side to move");
  return Attacked(pos, king, !pos.black_to_move);
}

std::vector<RefMove> PseudoLegalMoves(const RefPosition& pos) {
  std::vector<RefMove> out;
  for (int from = 0; from < 64; ++from) {
    const RefPiece* top = TopOf(pos, from);
    if (top == nullptr || top->black != pos.black_to_move) continue;
    for (int to : Destinations(pos, from)) AddAllCounts(pos, from, to, &out);
    // En passant: a pawn-topped unit moving diagonally forward onto the
    // passed-over square.
    if (top->IsUnpromotedPawn() && pos.ep_square >= 0) {
      const int dr = RankOf(pos.ep_square) - RankOf(from);
      const int df = FileOf(pos.ep_square) - FileOf(from);
      if (dr == ForwardOf(top->black) && (df == 1 || df == -1)) {
        // The victim: the double-stepped pawn on top of the square in front
        // of the passed-over square (seen from the side that double-stepped).
        const int victim = pos.ep_square - 8 * ForwardOf(top->black);
        const RefPiece* v = TopOf(pos, victim);
        Require(pos.stacks[pos.ep_square].empty() && v != nullptr &&
                    v->IsUnpromotedPawn() && v->black != top->black,
                "inconsistent en passant square");
        AddAllCounts(pos, from, pos.ep_square, &out);
      }
    }
  }
  AddCastling(pos, &out);
  return out;
}

RefPosition Apply(const RefPosition& pos, const RefMove& move,
                  RefEvents* events) {
  RefEvents ev;
  RefPosition next = pos;
  const bool mover = pos.black_to_move;
  const std::vector<RefPiece>& source = pos.stacks[move.from];
  const int height = static_cast<int>(source.size());
  Require(height >= move.k && move.k >= 1, "bad count");
  const RefPiece top = source.back();
  Require(top.black == mover, "moving the wrong colour");
  std::vector<int> changed;
  bool resets_clock = false;
  int new_ep = -1;

  if (IsCastling(pos, move)) {
    ev.castling = true;
    const int rank = RankOf(move.from);
    const bool kingside = FileOf(move.to) > FileOf(move.from);
    const int rook_from = SquareAt(kingside ? 7 : 0, rank);
    const int rook_to = SquareAt(kingside ? 5 : 3, rank);
    RefPiece king = next.stacks[move.from].back();
    next.stacks[move.from].pop_back();
    king.moved = true;
    next.stacks[move.to].push_back(king);
    RefPiece rook = next.stacks[rook_from].back();
    next.stacks[rook_from].pop_back();
    rook.moved = true;
    next.stacks[rook_to].push_back(rook);
    changed = {move.from, move.to, rook_from, rook_to};
    next.castling[mover ? kBlackKingside : kWhiteKingside] = false;
    next.castling[mover ? kBlackQueenside : kWhiteQueenside] = false;
  } else {
    const bool en_passant = IsEnPassant(pos, move);
    const RefPiece* dest_top = TopOf(pos, move.to);
    ev.split = move.k < height;
    ev.stacking = dest_top != nullptr;
    // The unit: top k pieces, all now moved.
    std::vector<RefPiece>& src = next.stacks[move.from];
    std::vector<RefPiece> unit(src.end() - move.k, src.end());
    src.erase(src.end() - move.k, src.end());
    for (RefPiece& p : unit) p.moved = true;
    std::vector<RefPiece>& dst = next.stacks[move.to];
    changed = {move.from, move.to};
    if (en_passant) {
      ev.en_passant = true;
      const int victim = move.to - 8 * ForwardOf(mover);
      RefPiece pawn = next.stacks[victim].back();
      next.stacks[victim].pop_back();
      dst.push_back(pawn);
      changed.push_back(victim);
    } else if (!dst.empty() && dst.back().promoted) {
      dst.back().promoted = false;  // demotion
      ++ev.demotions;
    }
    dst.insert(dst.end(), unit.begin(), unit.end());

    const bool pawn_topped = top.IsUnpromotedPawn();
    resets_clock = pawn_topped || en_passant ||
                   (dest_top != nullptr && dest_top->black != mover);
    if (pawn_topped && FileOf(move.from) == FileOf(move.to) &&
        std::abs(RankOf(move.to) - RankOf(move.from)) == 2) {
      new_ep = (move.from + move.to) / 2;
      ev.double_step = true;
    }
    // Castling rights: the king moved; a home rook left (the whole stack of
    // its square moved, the never-moved rook being at the bottom).
    if (top.kind == 'K') {
      next.castling[mover ? kBlackKingside : kWhiteKingside] = false;
      next.castling[mover ? kBlackQueenside : kWhiteQueenside] = false;
    }
    if (move.k == height) {
      if (move.from == SquareAt(7, 0)) next.castling[kWhiteKingside] = false;
      if (move.from == SquareAt(0, 0)) next.castling[kWhiteQueenside] = false;
      if (move.from == SquareAt(7, 7)) next.castling[kBlackKingside] = false;
      if (move.from == SquareAt(0, 7)) next.castling[kBlackQueenside] = false;
    }
  }

  // Promotion of every changed square's top pawn on its last rank.
  for (int sq : changed) {
    std::vector<RefPiece>& stack = next.stacks[sq];
    if (stack.empty()) continue;
    RefPiece& t = stack.back();
    if (t.IsUnpromotedPawn() && RankOf(sq) == LastRankOf(t.black)) {
      t.promoted = true;
      ++ev.promotions;
      if (sq == move.from) ++ev.promotions_on_source;
      if (t.black != mover) ++ev.promotions_of_opponent;
    }
  }

  next.ep_square = new_ep;
  next.halfmove = resets_clock ? 0 : pos.halfmove + 1;
  if (mover) ++next.fullmove;
  next.black_to_move = !mover;
  if (events != nullptr) *events = ev;
  return next;
}

std::vector<RefChild> LegalChildren(const RefPosition& pos) {
  std::vector<RefChild> out;
  const bool mover = pos.black_to_move;
  for (const RefMove& m : PseudoLegalMoves(pos)) {
    RefChild child;
    child.move = m;
    child.after = Apply(pos, m, &child.events);
    const int king = KingSquare(child.after, mover);
    if (!Attacked(child.after, king, !mover)) out.push_back(std::move(child));
  }
  std::sort(out.begin(), out.end(), [](const RefChild& a, const RefChild& b) {
    return a.move < b.move;
  });
  return out;
}

std::vector<RefMove> LegalMoves(const RefPosition& pos) {
  std::vector<RefMove> out;
  for (const RefChild& c : LegalChildren(pos)) out.push_back(c.move);
  return out;
}

std::string MoveText(const RefPosition& pos, const RefMove& move) {
  if (IsCastling(pos, move)) {
    return FileOf(move.to) > FileOf(move.from) ? "0-0" : "0-0-0";
  }
  std::string out = SquareName(move.from);
  const int height = static_cast<int>(pos.stacks[move.from].size());
  if (move.k < height) {
    out += '(';
    out += std::to_string(move.k);
    out += ')';
  }
  const bool onto = !pos.stacks[move.to].empty() || IsEnPassant(pos, move);
  out += onto ? 'x' : '-';
  out += SquareName(move.to);
  return out;
}

uint64_t Perft(const RefPosition& pos, int depth) {
  if (depth == 0) return 1;
  const std::vector<RefChild> children = LegalChildren(pos);
  if (depth == 1) return children.size();
  uint64_t total = 0;
  for (const RefChild& c : children) total += Perft(c.after, depth - 1);
  return total;
}

}  // namespace volkhv::tavreli_reference
