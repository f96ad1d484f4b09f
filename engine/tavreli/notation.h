// Tavreli move notation (rules page §9): canonical writer, lenient reader.
#ifndef VOLKHV_ENGINE_TAVRELI_NOTATION_H_
#define VOLKHV_ENGINE_TAVRELI_NOTATION_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/game/move.h"
#include "engine/tavreli/position.h"

namespace volkhv::tavreli {

// Canonical form of a legal move: `c8-g4`, `b2xd4`, `f3(2)xf6`, `0-0`.
std::string MoveToString(const Position& pos, Move move);

// Reads a move and checks that it is legal in `pos`. Accepts the canonical
// form, the spaced form (`b2 x d4`), `O-O`/`O-O-O`, `(h)` for a whole stack,
// `-` or `x` either way, and trailing marks of published records
// (`+ # ! ? *` and a final `x` that marks the game's last move).
absl::StatusOr<Move> ParseMove(const Position& pos, std::string_view text);

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_NOTATION_H_
