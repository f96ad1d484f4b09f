#include "selfplay/game_clock.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::selfplay {
namespace {

// Seconds with up to three decimals, as milliseconds.
absl::StatusOr<int64_t> ParseSeconds(std::string_view text,
                                     std::string_view field, double min) {
  const std::optional<double> seconds = ToDouble(text);
  if (!seconds || !(*seconds >= min) || *seconds > 1e7) {
    return absl::InvalidArgumentError(
        Cat("time control ", field, ": '", text, "' is not ",
            min > 0 ? "a positive number of seconds"
                    : "a number of seconds (0 or more)",
            " up to 10000000"));
  }
  return static_cast<int64_t>(std::llround(*seconds * 1000));
}

std::string Seconds(int64_t ms) {
  std::string text = absl::StrFormat("%.3f", ms / 1000.0);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

std::string ClockSpec::Describe() const {
  std::string text;
  if (moves > 0) text = Cat(moves, "/");
  text += Seconds(base_ms);
  if (increment_ms > 0) text += Cat("+", Seconds(increment_ms));
  return text;
}

absl::StatusOr<ClockSpec> ParseClockSpec(std::string_view text) {
  text = Trim(text);
  ClockSpec spec;
  const std::string whole(text);
  if (const size_t slash = text.find('/'); slash != std::string_view::npos) {
    absl::StatusOr<int> moves = volkhv::ParseInt<int>(
        text.substr(0, slash), Cat("time control '", whole, "': moves"), 1,
        100000);
    if (!moves.ok()) return moves.status();
    spec.moves = *moves;
    text = text.substr(slash + 1);
  }
  std::string_view base = text;
  if (const size_t plus = text.find('+'); plus != std::string_view::npos) {
    base = text.substr(0, plus);
    absl::StatusOr<int64_t> inc =
        ParseSeconds(text.substr(plus + 1), Cat("'", whole, "': increment"), 0);
    if (!inc.ok()) return inc.status();
    spec.increment_ms = *inc;
  }
  absl::StatusOr<int64_t> base_ms =
      ParseSeconds(base, Cat("'", whole, "': seconds"), 0.001);
  if (!base_ms.ok()) return base_ms.status();
  spec.base_ms = std::max<int64_t>(*base_ms, 1);
  return spec;
}

GameClock::GameClock(const ClockSpec& spec, int64_t margin_ms)
    : spec_(spec),
      margin_ms_(std::max<int64_t>(margin_ms, 0)),
      left_ms_(spec.base_ms) {}

std::optional<int64_t> GameClock::moves_to_go() const {
  if (spec_.moves <= 0) return std::nullopt;
  return spec_.moves - moves_made_ % spec_.moves;
}

bool GameClock::Charge(int64_t elapsed_ms) {
  if (elapsed_ms > deadline_ms()) {
    left_ms_ = 0;
    return false;
  }
  left_ms_ = std::max<int64_t>(left_ms_ - elapsed_ms, 0) + spec_.increment_ms;
  ++moves_made_;
  if (spec_.moves > 0 && moves_made_ % spec_.moves == 0) {
    left_ms_ += spec_.base_ms;
  }
  return true;
}

}  // namespace volkhv::selfplay
