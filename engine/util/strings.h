// String building and splitting that accept std::string_view. (Debian's
// Abseil has its own absl::string_view, which std::string_view does not
// convert to, so absl::StrCat/StrSplit are awkward with it.)
#ifndef VOLKHV_ENGINE_UTIL_STRINGS_H_
#define VOLKHV_ENGINE_UTIL_STRINGS_H_

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/strings/string_view.h"

namespace volkhv {

inline void AppendOne(std::string& out, std::string_view s) { out += s; }
inline void AppendOne(std::string& out, const char* s) { out += s; }
inline void AppendOne(std::string& out, const std::string& s) { out += s; }
inline void AppendOne(std::string& out, absl::string_view s) {
  out.append(s.data(), s.size());
}
inline void AppendOne(std::string& out, char c) { out += c; }
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> &&
                                                  !std::is_same_v<T, char> &&
                                                  !std::is_same_v<T, bool>>>
void AppendOne(std::string& out, T value) {
  out += std::to_string(value);
}

// Concatenates strings, string views, characters and numbers.
template <typename... Args>
std::string Cat(const Args&... args) {
  std::string out;
  (AppendOne(out, args), ...);
  return out;
}
template <typename... Args>
void Append(std::string* out, const Args&... args) {
  (AppendOne(*out, args), ...);
}

// Splits on any of `delimiters`; with skip_empty, empty pieces are dropped.
std::vector<std::string_view> Split(std::string_view text,
                                    std::string_view delimiters,
                                    bool skip_empty);

// Without leading and trailing ASCII whitespace.
std::string_view Trim(std::string_view text);

// `text` fit for one line of a message: control characters (a newline, a
// tab, ...) become C escapes (`\n`, `\t`, `\x01`), so that input echoed in
// an error can never split it.
std::string OneLine(std::string_view text);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_UTIL_STRINGS_H_
