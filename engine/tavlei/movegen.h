// Tavlei legal moves: generation, counting, a legality diagnosis for move
// parsing, and perft. All functions are pure and thread-safe.
#ifndef VOLKHV_ENGINE_TAVLEI_MOVEGEN_H_
#define VOLKHV_ENGINE_TAVLEI_MOVEGEN_H_

#include <cstdint>
#include <string>

#include "engine/game/move.h"
#include "engine/tavlei/position.h"
#include "engine/tavlei/rules.h"

namespace volkhv::tavlei {

// Appends the legal moves of the side to move, sorted by from, then to.
// None when the position is decided.
void GenerateMoves(const Rules& rules, const Position& position,
                   MoveList* moves);

// The number of legal moves (0 when decided), without making them.
int CountMoves(const Rules& rules, const Position& position);

// Whether the side to move has a legal move (false when decided).
bool HasMove(const Rules& rules, const Position& position);

// Empty when from-to is legal; otherwise why not, as a phrase naming the
// square or rule at fault (e.g. "path blocked at e7"). from and to must be
// squares of the board.
std::string IllegalMoveReason(const Rules& rules, const Position& position,
                              int from, int to);

// Leaves of the legal-move tree of `depth` plies; decided positions are
// leaves with no children. No repetition rule.
uint64_t Perft(const Rules& rules, const Position& position, int depth);

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_MOVEGEN_H_
