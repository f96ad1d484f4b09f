// Game clocks of matches, as cutechess-cli and fastchess take them:
// `40/60+0.6` (40 moves in 60 seconds, 0.6 s more per move, the period
// starting again after every 40 moves), `60+0.6` (sudden death with an
// increment), `60` (sudden death). A player whose move takes longer than its
// time left plus the match's margin loses on time.
#ifndef VOLKHV_SELFPLAY_GAME_CLOCK_H_
#define VOLKHV_SELFPLAY_GAME_CLOCK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace volkhv::selfplay {

// One time control.
struct ClockSpec {
  int moves = 0;             // moves per period (0: the whole game)
  int64_t base_ms = 0;       // time per period
  int64_t increment_ms = 0;  // added after every move

  // As parsed: "40/60+0.6", "60+0.6", "60" (seconds, shortest form).
  std::string Describe() const;
};

// Parses `[MOVES/]SECONDS[+INCREMENT]` (seconds may have up to three
// decimals); errors name the part at fault. Thread-safe (pure).
absl::StatusOr<ClockSpec> ParseClockSpec(std::string_view text);

// The clock of one player in one game. Not thread-safe (one game's thread).
class GameClock {
 public:
  // `margin_ms` (not negative): how far past its time a move may end
  // without losing on time (cutechess's timemargin).
  GameClock(const ClockSpec& spec, int64_t margin_ms);

  // Time left before the next move (ms; never negative).
  int64_t time_left_ms() const { return left_ms_; }
  int64_t increment_ms() const { return spec_.increment_ms; }
  // Moves until the period ends, counting the next one; absent for sudden
  // death.
  std::optional<int64_t> moves_to_go() const;
  // The longest the next move may take: time left plus the margin.
  int64_t deadline_ms() const { return left_ms_ + margin_ms_; }

  // Charges a move that took `elapsed_ms`: false when it took longer than
  // deadline_ms() (a loss on time; the clock is then left at zero); else
  // the time is taken off (at least zero is left), the increment added and,
  // at the end of a period, the period's time.
  bool Charge(int64_t elapsed_ms);

 private:
  ClockSpec spec_;
  int64_t margin_ms_;
  int64_t left_ms_;
  int moves_made_ = 0;
};

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_GAME_CLOCK_H_
