// Quick wins, found without searching every line: the search asks at each
// new position whether the side to move can win at once, in three plies (an
// unstoppable escape threat) or in five, and after which of its moves the
// opponent could win in one or three. Pure and thread-safe.
#ifndef VOLKHV_ENGINE_TAVLEI_IMMEDIATE_WIN_H_
#define VOLKHV_ENGINE_TAVLEI_IMMEDIATE_WIN_H_

#include <cstdint>
#include <vector>

#include "engine/game/move.h"
#include "engine/tavlei/position.h"
#include "engine/tavlei/rules.h"

namespace volkhv::tavlei {

// A legal move that decides the game for the side to move: the prince/king
// onto an exit/refuge (defenders), or a move that captures him (attackers).
// The null Move when there is none or the position is decided.
Move FindImmediateWin(const Rules& rules, const Position& position);

// A defenders' move of the prince/king after which he threatens to reach an
// exit/refuge and no attacker reply stops it (each reply leaves an escape
// open, or there is none): a win in three plies. The null Move when there
// is none, when the attackers are to move, or when the position is decided.
// Call when FindImmediateWin found nothing (a win in one is quicker).
Move FindUnstoppableEscape(const Rules& rules, const Position& position);

// A defenders' move of the prince/king after which every attacker reply
// leaves him a FindImmediateWin or a FindUnstoppableEscape: a win in five
// plies at most. Only moves that threaten one of those two were the
// attackers to pass are tried (a move that wins only because every reply
// weakens the attackers, zugzwang, is not found). The null Move when there
// is none, when the attackers are to move, or when the position is
// decided. Call when the two quicker wins were not found.
Move FindEscapeInFive(const Rules& rules, const Position& position);

// For each of `moves` (legal in `position`), how quickly the opponent can
// then win: 1 with an immediate win (FindImmediateWin), 3 with an
// unstoppable escape instead (FindUnstoppableEscape; only when `threats`),
// else 0 (a move that itself decides the game is 0). Returns how many are
// not 0.
int MarkMovesAllowingQuickWin(const Rules& rules, const Position& position,
                              const MoveList& moves, bool threats,
                              std::vector<uint8_t>* win_plies);

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_IMMEDIATE_WIN_H_
