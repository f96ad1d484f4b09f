// Tavreli as a game module: its rules, notation, encoder, evaluation and
// benchmark positions, for the registry (engine/games/games.cc).
#ifndef VOLKHV_ENGINE_TAVRELI_MODULE_H_
#define VOLKHV_ENGINE_TAVRELI_MODULE_H_

#include "engine/game/game_module.h"

namespace volkhv::tavreli {

// "tavreli". Options: none. Symmetries: none (the encoder already sees the
// board from the side to move; the mirror is no symmetry because the king
// and queen start on fixed files and castling is not mirror-invariant).
GameModule Module();

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_MODULE_H_
