// FUZZ_CHECK: an invariant of a harness. A failure prints the condition and
// a message (any string type) and aborts, which libFuzzer reports as a
// crash with the input.
#ifndef VOLKHV_FUZZ_FUZZ_CHECK_H_
#define VOLKHV_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>

namespace volkhv::fuzz {

// The message of a failed check (std::string, std::string_view,
// absl::string_view, a literal).
template <typename Text>
std::string CheckMessage(const Text& text) {
  return std::string(text.data(), text.size());
}
inline std::string CheckMessage(const char* text) { return text; }

[[noreturn]] inline void CheckFailed(const char* file, int line,
                                     const char* condition,
                                     const std::string& message) {
  std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: %s\n", file, line,
               condition, message.c_str());
  std::abort();
}

}  // namespace volkhv::fuzz

#define FUZZ_CHECK(condition, message)                                    \
  do {                                                                    \
    if (!(condition)) {                                                   \
      ::volkhv::fuzz::CheckFailed(__FILE__, __LINE__, #condition,         \
                                  ::volkhv::fuzz::CheckMessage(message)); \
    }                                                                     \
  } while (false)

#endif  // VOLKHV_FUZZ_FUZZ_CHECK_H_
