// snake_case to CamelCase: how UCI names the games' options
// (prince_max_steps -> PrinceMaxSteps), for the engine that offers them and
// the match's outside-engine player that sets them.
#ifndef VOLKHV_ENGINE_UTIL_CAMEL_CASE_H_
#define VOLKHV_ENGINE_UTIL_CAMEL_CASE_H_

#include <string>
#include <string_view>

namespace volkhv {

inline std::string CamelCase(std::string_view snake) {
  std::string name;
  bool upper = true;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    name +=
        upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
  return name;
}

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_UTIL_CAMEL_CASE_H_
