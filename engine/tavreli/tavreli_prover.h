// Tavreli's tactics for the search (engine/game/prover.h): mates in one.
// Without them a trained net's search misses a mate whose move has a small
// prior, and walks into one (the opponent's mating reply, small prior too,
// was never visited).
#ifndef VOLKHV_ENGINE_TAVRELI_TAVRELI_PROVER_H_
#define VOLKHV_ENGINE_TAVRELI_TAVRELI_PROVER_H_

#include "engine/game/move.h"
#include "engine/game/prover.h"
#include "engine/tavreli/position.h"

namespace volkhv::tavreli {

// A legal move of `position` that checkmates, or a null Move. A mate ends
// the game whatever the clocks and the history say (rules page section 8:
// the fifty-move rule and repetition apply to a game not already over).
Move FindMateInOne(const Position& position);

// The Tavreli prover: ImmediateWin is FindMateInOne. The other three find
// nothing, a correct answer (engine/game/prover.h): the search finds those
// wins, and the moves that allow a mate, by searching. States of other
// games get no answer. Valid for the program's life; thread-safe.
const Prover& TavreliProver();

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_TAVRELI_PROVER_H_
