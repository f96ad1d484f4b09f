// Search values as front ends show them: WDL in per mille, proven results
// as "mate in N moves" (the centipawn-like score from Q is
// engine/search/centipawns.h).
#ifndef VOLKHV_ENGINE_PROTOCOL_SCORE_H_
#define VOLKHV_ENGINE_PROTOCOL_SCORE_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/game/game.h"
#include "engine/search/node.h"

namespace volkhv::protocol {

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
