// Tavlei move notation: `e5-e8`, with the captured squares appended by the
// writer (`e5-e8xe9`, `e5-e8xd8/f8`). All functions are pure and thread-safe.
#ifndef VOLKHV_ENGINE_TAVLEI_MOVE_TEXT_H_
#define VOLKHV_ENGINE_TAVLEI_MOVE_TEXT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/game/move.h"
#include "engine/tavlei/position.h"
#include "engine/tavlei/rules.h"

namespace volkhv::tavlei {

// The canonical text of a legal move: from-to, then `x` and the captured
// squares in ascending square order separated by `/`, if any.
std::string WriteMove(const Rules& rules, const Position& position, Move move);

// Parses a move and checks that it is legal in `position`. Accepts the
// canonical form, no capture list, spaces around `-` and trailing marks
// `+ ! ? * #` or a lone `x`. A capture list, if given, must name exactly the
// squares the move captures. Errors are one line naming the problem.
absl::StatusOr<Move> ParseMoveText(const Rules& rules, const Position& position,
                                   std::string_view text);

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_MOVE_TEXT_H_
