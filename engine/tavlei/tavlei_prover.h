// The Tavlei tactics (engine/tavlei/immediate_win.h) behind the game-neutral
// Prover interface, for tavlei9 and tavlei11 with any options.
#ifndef VOLKHV_ENGINE_TAVLEI_TAVLEI_PROVER_H_
#define VOLKHV_ENGINE_TAVLEI_TAVLEI_PROVER_H_

#include "engine/game/prover.h"

namespace volkhv {

// The one Tavlei prover, valid for the program's life. It reads the rules
// from each state it is asked about, so it serves every Tavlei variant;
// states of other games get no answer. Thread-safe.
const Prover& TavleiProver();

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_TAVLEI_TAVLEI_PROVER_H_
