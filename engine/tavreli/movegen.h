// Tavreli legal move generation, legality tests and perft.
#ifndef VOLKHV_ENGINE_TAVRELI_MOVEGEN_H_
#define VOLKHV_ENGINE_TAVRELI_MOVEGEN_H_

#include <cstdint>
#include <string>

#include "engine/game/move.h"
#include "engine/tavreli/position.h"

namespace volkhv::tavreli {

// All legal moves of the side to move, in a deterministic order (by source
// square, then count, then destination; castling and en passant last).
// Castling is the king's two-square move with count 1.
void GenerateLegalMoves(const Position& pos, MoveList* moves);

// The legal moves that may capture or promote, in GenerateLegalMoves' order:
// those onto an enemy-topped square, en passant captures, and pawn moves onto
// the last rank (what TavreliHeuristic calls noisy, and a few more: a pawn
// that reaches the last rank as a pawn). Quiescence's move generator.
void GenerateNoisyCandidates(const Position& pos, MoveList* moves);

// The number of legal moves, without listing them (perft's leaf counting).
int CountLegalMoves(const Position& pos);

// Whether the side to move has any legal move (cheaper than counting).
bool HasLegalMove(const Position& pos);

// Whether the side to move has a legal en passant capture.
bool HasLegalEnPassant(const Position& pos);

// Why a (from, to, count) triple is not legal here, in a few words
// ("the Rook on a1 cannot reach a5", "it leaves the king in check"), or an
// empty string when it is legal.
std::string ExplainIllegal(const Position& pos, Move move);

// Leaf nodes of the legal-move tree of the given depth (rules page §11).
uint64_t Perft(const Position& pos, int depth);

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_MOVEGEN_H_
