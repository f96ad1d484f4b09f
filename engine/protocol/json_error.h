// The message of a JSON parse error, as the protocols report it.
#ifndef VOLKHV_ENGINE_PROTOCOL_JSON_ERROR_H_
#define VOLKHV_ENGINE_PROTOCOL_JSON_ERROR_H_

#include <exception>
#include <string>

namespace volkhv::protocol {

// nlohmann's what() without its "[json.exception.parse_error.101] " prefix.
inline std::string JsonErrorMessage(const std::exception& e) {
  std::string message = e.what();
  if (message.starts_with("[json.exception.")) {
    const size_t end = message.find("] ");
    if (end != std::string::npos) message.erase(0, end + 2);
  }
  return message;
}

}  // namespace volkhv::protocol

#endif  // VOLKHV_ENGINE_PROTOCOL_JSON_ERROR_H_
