// Tavreli as a game module: its rules, notation, encoder, evaluation and
// benchmark positions, for the registry (engine/games/games.cc).
#ifndef VOLKHV_ENGINE_TAVRELI_MODULE_H_
#define VOLKHV_ENGINE_TAVRELI_MODULE_H_

#include "engine/game/game_module.h"
#include "engine/game/result.h"

namespace volkhv::tavreli {

// Tavreli's own terminations (Module's table names them). In check with no
// legal move, lost:
inline constexpr Termination kCheckmate{1};
// Not in check with no legal move, a draw:
inline constexpr Termination kStalemate{2};
// 100 plies without a pawn-topped move or a move onto an enemy-topped square,
// a draw:
inline constexpr Termination kFiftyMoves{4};

// "tavreli". Options: none. Symmetries: none (the encoder already sees the
// board from the side to move; the mirror is no symmetry because the king
// and queen start on fixed files and castling is not mirror-invariant).
GameModule Module();

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_MODULE_H_
