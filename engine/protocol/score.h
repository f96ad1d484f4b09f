// Search values as front ends show them: a centipawn-like score from Q,
// WDL in per mille, and proven results as "mate in N moves".
#ifndef VOLKHV_ENGINE_PROTOCOL_SCORE_H_
#define VOLKHV_ENGINE_PROTOCOL_SCORE_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/game/game.h"
#include "engine/search/node.h"

namespace volkhv::protocol {

// lc0's mapping of Q = W - L in [-1, 1] to centipawns:
// 111.714640912 * tan(1.5620688421 * q), clamped to +-12800 (|q| = 1 maps
// to about +-12800). Monotonic; 0 for q = 0.
int CentipawnsFromQ(double q);

// W, D, L in per mille, rounded so that they sum to 1000 (the largest
// remainders get the spare units). Negative inputs count as 0; all zero
// gives 0 1000 0.
std::array<int, 3> WdlPerMille(const float wdl[3]);

// UCI's "mate N" in moves of the side to move: positive when it wins in
// `plies` plies (counting its own move), negative when it loses; none for a
// draw or an unproven value.
std::optional<int> MateInMoves(search::Proven proven, int plies);

// "win", "draw", "loss" or "" (kNone).
std::string ProvenName(search::Proven proven);

// The moves of `pv` (legal in turn from `root`) in the game's notation.
std::vector<std::string> MoveTexts(const GameState& root,
                                   const std::vector<Move>& pv);

}  // namespace volkhv::protocol

#endif  // VOLKHV_ENGINE_PROTOCOL_SCORE_H_
