#include "engine/tavreli/position.h"

#include <cstdlib>
#include <cstring>

#include "engine/tavreli/movegen.h"
#include "engine/util/random.h"

namespace volkhv::tavreli {
namespace {

// Identities that repetition distinguishes, per colour: K Q R B N, pawns by
// symbol (never moved / moved), promoted pawns by symbol.
constexpr int kIdentitiesPerColor = 20;
constexpr int kIdentities = 2 * kIdentitiesPerColor;

int Identity(Piece p, bool moved) {
  int local;
  if (IsPromoted(p)) {
    local = 15 + SymbolOf(p) - 1;
  } else if (IsPawn(p)) {
    local = (moved ? 10 : 5) + SymbolOf(p) - 1;
  } else {
    local = TypeOf(p);
  }
  return ColorOf(p) * kIdentitiesPerColor + local;
}

struct ZobristKeys {
  // [depth from the bottom][square][identity]
  uint64_t piece[kMaxStackHeight][kNumSquares][kIdentities];
  uint64_t black_to_move;
  uint64_t castling[16];
  uint64_t ep_file[8];
};

const ZobristKeys& Keys() {
  static const ZobristKeys* const keys = [] {
    auto* k = new ZobristKeys;
    uint64_t state = 0x54415652454C49ull;  // fixed: hashes are reproducible
    for (auto& depth : k->piece) {
      for (auto& square : depth) {
        for (uint64_t& key : square) key = SplitMix64Next(state);
      }
    }
    k->black_to_move = SplitMix64Next(state);
    for (uint64_t& key : k->castling) key = SplitMix64Next(state);
    for (uint64_t& key : k->ep_file) key = SplitMix64Next(state);
    return k;
  }();
  return *keys;
}

}  // namespace

bool AttackedBy(const TopBoards& b, int square, Color by) {
  const AttackTables& t = Tables();
  const Bitboard own = b.color[by];
  if (t.pawn[Opponent(by)][square] & b.type[kPawn] & own) return true;
  if (t.knight[square] & (b.type[kKnight] | b.type[kHelgi]) & own) return true;
  if (t.king[square] & b.type[kKing] & own) return true;
  const Bitboard occupied = b.Occupied();
  const Bitboard straight =
      (b.type[kRook] | b.type[kQueen] | b.type[kHelgi]) & own;
  if ((straight & t.rook_lines[square]) &&
      (RookAttacks(square, occupied) & straight)) {
    return true;
  }
  const Bitboard diagonal =
      (b.type[kBishop] | b.type[kQueen] | b.type[kHelgi]) & own;
  return (diagonal & t.bishop_lines[square]) &&
         (BishopAttacks(square, occupied) & diagonal);
}

Position::Position() {
  std::memset(top_, kNoSlot, sizeof(top_));
  std::memset(height_, 0, sizeof(height_));
  std::memset(below_, kNoSlot, sizeof(below_));
  std::memset(piece_, 0, sizeof(piece_));
}

bool Position::PushPiece(int square, Piece piece, bool moved) {
  if (num_pieces_ >= kMaxPieces || height_[square] >= kMaxStackHeight) {
    return false;
  }
  const uint8_t slot = num_pieces_++;
  piece_[slot] = piece;
  if (moved) moved_ |= uint32_t{1} << slot;
  below_[slot] = top_[square];
  top_[square] = slot;
  ++height_[square];
  return true;
}

void Position::SetState(Color side, uint8_t castling, int ep_square,
                        int halfmove, int fullmove) {
  side_ = side;
  castling_ = castling;
  ep_square_ = static_cast<int8_t>(ep_square);
  halfmove_ = static_cast<uint16_t>(halfmove);
  fullmove_ = static_cast<uint16_t>(fullmove);
}

void Position::Finalize() {
  tops_ = TopBoards();
  for (int s = 0; s < kNumSquares; ++s) RefreshTop(s);
  ep_in_hash_ = ep_square_ != kNoSquare && HasLegalEnPassant(*this);
  hash_ = ComputeHash();
}

Piece Position::PieceAt(int square, int depth) const {
  uint8_t slot = top_[square];
  for (int i = 0; i < depth; ++i) slot = below_[slot];
  return piece_[slot];
}

int Position::StackBottomToTop(int square, Piece* pieces, bool* moved) const {
  const int h = height_[square];
  uint8_t slot = top_[square];
  for (int i = h - 1; i >= 0; --i) {
    pieces[i] = piece_[slot];
    if (moved) moved[i] = (moved_ >> slot & 1) != 0;
    slot = below_[slot];
  }
  return h;
}

uint64_t Position::PieceKey(int square, int depth, uint8_t slot) const {
  return Keys()
      .piece[depth][square][Identity(piece_[slot], (moved_ >> slot & 1) != 0)];
}

uint64_t Position::StateKey() const {
  const ZobristKeys& k = Keys();
  uint64_t key = k.castling[castling_];
  if (side_ == kBlack) key ^= k.black_to_move;
  if (ep_in_hash_) key ^= k.ep_file[FileOf(ep_square_)];
  return key;
}

uint64_t Position::ComputeHash() const {
  uint64_t hash = StateKey();
  for (int s = 0; s < kNumSquares; ++s) {
    uint8_t slot = top_[s];
    for (int depth = height_[s] - 1; depth >= 0; --depth) {
      hash ^= PieceKey(s, depth, slot);
      slot = below_[slot];
    }
  }
  return hash;
}

void Position::RefreshTop(int square) {
  if (top_[square] == kNoSlot) {
    tops_.Clear(square);
  } else {
    tops_.Set(square, piece_[top_[square]]);
  }
}

void Position::MaybePromote(int square) {
  const uint8_t slot = top_[square];
  if (slot == kNoSlot) return;
  const Piece p = piece_[slot];
  if (!IsPawn(p) || RankOf(square) != LastRank(ColorOf(p))) return;
  const int depth = height_[square] - 1;
  hash_ ^= PieceKey(square, depth, slot);
  piece_[slot] = Promote(p);
  hash_ ^= PieceKey(square, depth, slot);
}

// Moves the top `count` pieces of `from` onto `to`, keeping their order,
// marking them moved and demoting a promoted pawn they cover.
void Position::LiftAndPlace(int from, int to, int count) {
  const int from_height = height_[from];
  const int to_height = height_[to];
  const uint8_t unit_top = top_[from];
  if (to_height > 0 && IsPromoted(piece_[top_[to]])) {
    const uint8_t covered = top_[to];
    hash_ ^= PieceKey(to, to_height - 1, covered);
    piece_[covered] = Demote(piece_[covered]);
    hash_ ^= PieceKey(to, to_height - 1, covered);
  }
  uint8_t slot = unit_top;
  uint8_t unit_bottom = unit_top;
  for (int i = 0; i < count; ++i) {
    hash_ ^= PieceKey(from, from_height - 1 - i, slot);
    moved_ |= uint32_t{1} << slot;
    hash_ ^= PieceKey(to, to_height + count - 1 - i, slot);
    unit_bottom = slot;
    slot = below_[slot];
  }
  top_[from] = slot;
  height_[from] = static_cast<uint8_t>(from_height - count);
  below_[unit_bottom] = top_[to];
  top_[to] = unit_top;
  height_[to] = static_cast<uint8_t>(to_height + count);
}

void Position::Apply(Move move) {
  const Color us = side_;
  const int from = move.from;
  const int to = move.to;
  const Piece mover = piece_[top_[from]];
  const bool onto_enemy =
      top_[to] != kNoSlot && ColorOf(piece_[top_[to]]) != us;
  const bool pawn_move = IsPawn(mover);
  const bool en_passant =
      pawn_move && to == ep_square_ && FileOf(from) != FileOf(to);
  const bool castle =
      TypeOf(mover) == kKing && std::abs(FileOf(to) - FileOf(from)) == 2;
  const bool double_step = pawn_move && std::abs(to - from) == 16;

  hash_ ^= StateKey();
  if (en_passant) {
    // The double-stepped pawn goes to the passed-over square, under the unit.
    const int pawn_square = to - Forward(us);
    LiftAndPlace(pawn_square, to, 1);
    MaybePromote(pawn_square);
    RefreshTop(pawn_square);
  }
  LiftAndPlace(from, to, move.count);
  if (castle) {
    const bool kingside = FileOf(to) > FileOf(from);
    const int rook_from = kingside ? from + 3 : from - 4;
    const int rook_to = kingside ? from + 1 : from - 1;
    LiftAndPlace(rook_from, rook_to, 1);
    RefreshTop(rook_from);
    RefreshTop(rook_to);
  }
  MaybePromote(from);
  MaybePromote(to);
  RefreshTop(from);
  RefreshTop(to);

  if (castling_) {
    const bool whole_stack = height_[from] == 0;
    switch (from) {
      case MakeSquare(4, 0):
        castling_ &= ~(kWhiteKingside | kWhiteQueenside);
        break;
      case MakeSquare(4, 7):
        castling_ &= ~(kBlackKingside | kBlackQueenside);
        break;
      case MakeSquare(0, 0):
        if (whole_stack) castling_ &= ~kWhiteQueenside;
        break;
      case MakeSquare(7, 0):
        if (whole_stack) castling_ &= ~kWhiteKingside;
        break;
      case MakeSquare(0, 7):
        if (whole_stack) castling_ &= ~kBlackQueenside;
        break;
      case MakeSquare(7, 7):
        if (whole_stack) castling_ &= ~kBlackKingside;
        break;
      default:
        break;
    }
  }
  // Both counters stop at 65535, TFEN's largest (a wrapped clock would
  // forget the fifty-move rule and a wrapped move number would not read back).
  halfmove_ = (pawn_move || onto_enemy || en_passant) ? 0
              : halfmove_ == kMaxMoveCounter
                  ? halfmove_
                  : static_cast<uint16_t>(halfmove_ + 1);
  if (us == kBlack && fullmove_ != kMaxMoveCounter) ++fullmove_;
  side_ = Opponent(us);
  ep_square_ = double_step ? static_cast<int8_t>((from + to) / 2) : kNoSquare;
  ep_in_hash_ = double_step && HasLegalEnPassant(*this);
  hash_ ^= StateKey();
}

}  // namespace volkhv::tavreli
