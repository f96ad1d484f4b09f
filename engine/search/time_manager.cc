#include "engine/search/time_manager.h"

#include <algorithm>

namespace volkhv::search {

int64_t ClockBudgetMs(int64_t time_left_ms, int64_t increment_ms,
                      std::optional<int64_t> moves_to_go) {
  constexpr int64_t kMaxClockMs = int64_t{1} << 40;
  const int64_t left = std::clamp(time_left_ms, -kMaxClockMs, kMaxClockMs);
  const int64_t inc = std::clamp<int64_t>(increment_ms, 0, kMaxClockMs);
  const int64_t divisor = moves_to_go.has_value() && *moves_to_go > 0
                              ? std::min(*moves_to_go, kMaxClockMs) + 1
                              : 30;
  int64_t budget = left / divisor + inc * 3 / 4;
  budget = std::min(budget, left - std::min<int64_t>(left / 10, 100));
  return std::max<int64_t>(budget, 1);
}

SearchLimits SearchLimitsFor(const TimeControl& control, int side) {
  SearchLimits limits;
  limits.nodes = control.nodes;
  limits.visits = control.visits;
  limits.time_ms = control.movetime_ms;
  if (limits.time_ms == 0 && control.time_left_ms[side].has_value()) {
    limits.time_ms = ClockBudgetMs(*control.time_left_ms[side],
                                   control.increment_ms[side].value_or(0),
                                   control.moves_to_go);
  }
  limits.depth = std::max(control.depth, 0);
  limits.mate_plies = control.mate > 0 ? 2 * control.mate - 1 : 0;
  limits.infinite =
      control.infinite ||
      (limits.nodes == 0 && limits.visits == 0 && limits.time_ms == 0 &&
       limits.depth == 0 && limits.mate_plies == 0);
  return limits;
}

}  // namespace volkhv::search
