// Numbers from text, through Abseil's parsers, with errors that name the
// field and the accepted range. Every parse of a number from user input
// (command-line options, config values, notation, protocol commands) goes
// through these.
#ifndef VOLKHV_ENGINE_UTIL_PARSE_NUMBER_H_
#define VOLKHV_ENGINE_UTIL_PARSE_NUMBER_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "engine/util/strings.h"

namespace volkhv {

// The integer `text` spells: decimal digits after an optional '-', nothing
// else (no spaces, no '+'); nullopt when it is not one or does not fit in T.
// Thread-safe.
template <typename T>
std::optional<T> ToInt(std::string_view text) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if (text.empty() || text[0] == '+' || absl::ascii_isspace(text.front()) ||
      absl::ascii_isspace(text.back())) {
    return std::nullopt;
  }
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  Wide wide = 0;
  if (!absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &wide) ||
      wide < static_cast<Wide>(std::numeric_limits<T>::min()) ||
      wide > static_cast<Wide>(std::numeric_limits<T>::max())) {
    return std::nullopt;
  }
  return static_cast<T>(wide);
}

// The integer `text` spells (as ToInt), which must lie in [min, max]; else
// InvalidArgumentError "<field>: '<text>' is not an integer in [min, max]"
// (the text made one line; without a range of its own, "is not an integer",
// or "is not a non-negative integer" for an unsigned T). Thread-safe.
template <typename T>
absl::StatusOr<T> ParseInt(std::string_view text, std::string_view field,
                           T min = std::numeric_limits<T>::min(),
                           T max = std::numeric_limits<T>::max()) {
  const std::optional<T> value = ToInt<T>(text);
  if (value && *value >= min && *value <= max) return *value;
  std::string message = Cat(field, ": '", OneLine(text), "' is not ");
  if (min != std::numeric_limits<T>::min() ||
      max != std::numeric_limits<T>::max()) {
    Append(&message, "an integer in [", min, ", ", max, "]");
  } else {
    Append(&message,
           std::is_signed_v<T> ? "an integer" : "a non-negative integer");
  }
  return absl::InvalidArgumentError(message);
}

// The finite decimal number `text` spells (absl::SimpleAtod: digits, an
// optional sign, point and exponent; no spaces); nullopt otherwise.
// Thread-safe.
inline std::optional<double> ToDouble(std::string_view text) {
  double value = 0;
  if (text.empty() || absl::ascii_isspace(text.front()) ||
      absl::ascii_isspace(text.back()) ||
      !absl::SimpleAtod(absl::string_view(text.data(), text.size()), &value) ||
      !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// The number `text` spells (as ToDouble), which must lie in [min, max]; else
// InvalidArgumentError "<field>: '<text>' is not a number in [min, max]"
// (the bounds as Cat writes doubles). Thread-safe.
inline absl::StatusOr<double> ParseDouble(std::string_view text,
                                          std::string_view field, double min,
                                          double max) {
  const std::optional<double> value = ToDouble(text);
  if (!value || *value < min || *value > max) {
    return absl::InvalidArgumentError(Cat(field, ": '", OneLine(text),
                                          "' is not a number in [", min, ", ",
                                          max, "]"));
  }
  return *value;
}

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_UTIL_PARSE_NUMBER_H_
