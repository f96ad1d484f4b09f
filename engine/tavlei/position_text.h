// Text forms of a Tavlei position: the one-line notation
// `<board> <side> <ply>` (read and written) and a multi-line diagram.
// All functions are pure and thread-safe.
#ifndef VOLKHV_ENGINE_TAVLEI_POSITION_TEXT_H_
#define VOLKHV_ENGINE_TAVLEI_POSITION_TEXT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/tavlei/position.h"
#include "engine/tavlei/rules.h"

namespace volkhv::tavlei {

// Parses the position notation. Errors are one line naming the field or rank
// at fault (rank count or length, unknown character, side, ply, number of
// kings, a piece other than the king on the throne or an exit/refuge). A
// king already on an exit/refuge is accepted: the position is decided.
absl::StatusOr<Position> ParsePosition(const Rules& rules,
                                       std::string_view text);

// The canonical notation of a position (a captured king's position has no K
// and so does not read back).
std::string WritePosition(const Rules& rules, const Position& position);

// Ranks from the highest down with their numbers, file letters beneath, `.`
// empty, `+` empty throne, `*` empty exit/refuge, pieces t/T/K; then the
// side to move and, when decided, how.
std::string DrawBoard(const Rules& rules, const Position& position);

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_POSITION_TEXT_H_
