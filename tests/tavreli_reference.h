// A deliberately naive, independent implementation of the Tavreli rules
// (docs/tavreli-rules.md), used only by tests to cross-check the production
// engine in engine/tavreli/. It shares no code with the engine: stacks are
// plain vectors, moves are found by walking the board square by square, and
// legality is decided by playing each move on a copy and asking, by brute
// force, whether any enemy stack-top could capture onto the mover's king.
//
// Square index = rank * 8 + file, a1 = 0. Obviously correct beats fast.
#ifndef VOLKHV_TESTS_TAVRELI_REFERENCE_H_
#define VOLKHV_TESTS_TAVRELI_REFERENCE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace volkhv::tavreli_reference {

// One piece of a stack.
struct RefPiece {
  bool black = false;
  // 'K', 'Q', 'R', 'B', 'N' or 'P'. A promoted pawn keeps kind 'P' and sets
  // `promoted`; it then moves as `symbol`.
  char kind = 'P';
  // Pawns only (promoted or not): 'R', 'N', 'B', 'Q' or 'H'; else 0.
  char symbol = 0;
  bool promoted = false;
  // Has been part of a moving unit (rules page section 2).
  bool moved = false;

  bool IsUnpromotedPawn() const { return kind == 'P' && !promoted; }
  // The letter of the movement this piece uses: K Q R B N H P.
  char MovesAs() const { return kind == 'P' && promoted ? symbol : kind; }
};

// Castling right indices.
inline constexpr int kWhiteKingside = 0;   // K
inline constexpr int kWhiteQueenside = 1;  // Q
inline constexpr int kBlackKingside = 2;   // k
inline constexpr int kBlackQueenside = 3;  // q

struct RefPosition {
  std::array<std::vector<RefPiece>, 64> stacks;  // bottom to top
  bool black_to_move = false;
  std::array<bool, 4> castling = {false, false, false, false};
  int ep_square = -1;  // the passed-over square after a double step
  int halfmove = 0;
  int fullmove = 1;
};

struct RefMove {
  int from = 0;
  int to = 0;
  int k = 1;

  friend bool operator==(const RefMove& a, const RefMove& b) {
    return a.from == b.from && a.to == b.to && a.k == b.k;
  }
  friend bool operator<(const RefMove& a, const RefMove& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.to != b.to) return a.to < b.to;
    return a.k < b.k;
  }
};

// What a move did, for the tests' statistics.
struct RefEvents {
  int promotions = 0;  // squares whose top pawn was promoted
  // Of those: on the source square (a split remainder or an uncovered pawn),
  // and pawns of the side that did not move.
  int promotions_on_source = 0;
  int promotions_of_opponent = 0;
  int demotions = 0;  // promoted pawns covered
  bool en_passant = false;
  bool castling = false;
  bool split = false;     // k < height of the source stack
  bool stacking = false;  // the destination was occupied
  bool double_step = false;
};

// "a1".."h8".
std::string SquareName(int square);

// Parses a valid TFEN (rules page section 10). Aborts on malformed input:
// validity checking is the engine's job; test inputs are hand-checked.
RefPosition ParseTfen(const std::string& tfen);

// The canonical TFEN of a position.
std::string WriteTfen(const RefPosition& pos);

// Whether a stack-top of the given colour could capture onto `square`
// (rules page section 8).
bool Attacked(const RefPosition& pos, int square, bool by_black);

// The square of the king of the given colour (-1 if none).
int KingSquare(const RefPosition& pos, bool black);

// Whether the side to move is in check.
bool InCheck(const RefPosition& pos);

// Every (from, to, k) the side to move could play ignoring its own king's
// safety (castling conditions on attacked squares are included, since they
// are not about the position after the move).
std::vector<RefMove> PseudoLegalMoves(const RefPosition& pos);

// Plays a pseudo-legal move on a copy. `events` may be null.
RefPosition Apply(const RefPosition& pos, const RefMove& move,
                  RefEvents* events);

// A legal move and the position after it.
struct RefChild {
  RefMove move;
  RefPosition after;
  RefEvents events;
};

// All legal moves, sorted by (from, to, k), with their results.
std::vector<RefChild> LegalChildren(const RefPosition& pos);
std::vector<RefMove> LegalMoves(const RefPosition& pos);

// Canonical move notation (rules page section 9) of a legal move.
std::string MoveText(const RefPosition& pos, const RefMove& move);

// Leaf count of the legal move tree (rules page section 11).
uint64_t Perft(const RefPosition& pos, int depth);

}  // namespace volkhv::tavreli_reference

#endif  // VOLKHV_TESTS_TAVRELI_REFERENCE_H_
