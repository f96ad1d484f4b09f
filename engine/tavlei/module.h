// Tavlei as a game module (tavlei9, tavlei11): its rules, notation, encoder,
// evaluation, symmetries, options and benchmark positions, for the registry
// (engine/games/games.cc).
#ifndef VOLKHV_ENGINE_TAVLEI_MODULE_H_
#define VOLKHV_ENGINE_TAVLEI_MODULE_H_

#include <string>

#include "engine/game/game_module.h"
#include "engine/game/result.h"

namespace volkhv::tavlei {

// Tavlei's own terminations (Module's table names them). The side to move
// cannot move and loses:
inline constexpr Termination kNoLegalMoves{5};
// The prince/king was captured:
inline constexpr Termination kKingCaptured{6};
// The prince/king reached an exit/refuge:
inline constexpr Termination kKingEscaped{7};

// The module of `variant`, "tavlei9" or "tavlei11". Option:
// prince_max_steps (0 = unlimited). Symmetries: the eight of the square
// (engine/tavlei/symmetry.h).
GameModule Module(const std::string& variant);

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_MODULE_H_
