// How much one search may spend: SearchLimits from what a front end was told
// (UCI's `go`: a fixed time per move, a clock with increment, node or visit
// counts). The only place where a clock becomes a time budget.
#ifndef VOLKHV_ENGINE_SEARCH_TIME_MANAGER_H_
#define VOLKHV_ENGINE_SEARCH_TIME_MANAGER_H_

#include <cstdint>
#include <optional>

#include "engine/search/search_result.h"

namespace volkhv::search {

// What a front end knows about the limits of one move. Zero or absent is no
// limit.
struct TimeControl {
  uint64_t nodes = 0;       // playouts of this search
  uint64_t visits = 0;      // root visits, counting those kept from before
  int64_t movetime_ms = 0;  // a fixed time for this move (beats the clock)
  // Per player (0 = the first): the time left on the clock (may be zero or
  // negative when a GUI is late) and the increment per move (not negative).
  std::optional<int64_t> time_left_ms[2];
  std::optional<int64_t> increment_ms[2];
  std::optional<int64_t> moves_to_go;  // moves until the next time control
  int depth = 0;  // UCI's `go depth N`: SearchLimits::depth
  int mate = 0;   // UCI's `go mate N`, in moves: SearchLimits::mate_plies
  bool infinite = false;  // search until told to stop
};

// The time to spend on one move with `time_left_ms` on the clock: an even
// share of it (over moves_to_go + 1 moves, or 30 without moves_to_go) plus
// three quarters of the increment, never more than the clock less a safety
// margin (a tenth of it, at most 100 ms), and at least 1 ms. Inputs are
// clamped to about 35 years, so no sum overflows. Thread-safe (pure).
int64_t ClockBudgetMs(int64_t time_left_ms, int64_t increment_ms,
                      std::optional<int64_t> moves_to_go);

// The limits of one search with player `side` (0 or 1) to move: nodes,
// visits and depth as given; time_ms = movetime_ms, or else the clock
// budget of `side` when its clock is given; mate_plies = 2 mate - 1 (a
// mate in N moves is 2N - 1 plies); infinite when asked, or when nothing
// limits the search (neither a limit nor a mate). progress_interval_ms
// keeps its default (the front end's to set). Thread-safe (pure).
SearchLimits SearchLimitsFor(const TimeControl& control, int side);

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_TIME_MANAGER_H_
