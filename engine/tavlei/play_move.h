// Playing a move on a Tavlei position: the piece moves, custodial captures
// are resolved, the game may become decided, the side to move changes.
#ifndef VOLKHV_ENGINE_TAVLEI_PLAY_MOVE_H_
#define VOLKHV_ENGINE_TAVLEI_PLAY_MOVE_H_

#include <array>
#include <cstdint>

#include "engine/tavlei/position.h"
#include "engine/tavlei/rules.h"

namespace volkhv::tavlei {

// The squares emptied by one move's captures, in ascending order. A moved
// piece has at most three enemy neighbours it did not come from.
struct Captures {
  int count = 0;
  std::array<uint8_t, kNumDirections> squares{};
};

// Plays from-to, which must be legal in *position. Fills *captures when it is
// not null. Thread-safe for distinct positions.
void PlayMove(const Rules& rules, Position* position, int from, int to,
              Captures* captures);

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_PLAY_MOVE_H_
