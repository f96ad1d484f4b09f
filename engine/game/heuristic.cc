#include "engine/game/heuristic.h"

namespace volkhv {

void Heuristic::NoisyMoves(const GameState& state, MoveList* noisy,
                           MoveClass* noisy_classes) const {
  state.LegalMoves(noisy);
  ClassifyMoves(state, *noisy, noisy_classes);
  KeepNoisyMoves(noisy, noisy_classes);
}

void KeepNoisyMoves(MoveList* moves, MoveClass* classes) {
  int kept = 0;
  for (int i = 0; i < moves->size(); ++i) {
    if (!classes[i].noisy) continue;
    (*moves)[kept] = (*moves)[i];
    classes[kept] = classes[i];
    ++kept;
  }
  moves->truncate(kept);
}

}  // namespace volkhv
