// Text-format protobuf configs (configs/*.textproto): one parser for all of
// them, so every config names the line and field of its first error.
#ifndef VOLKHV_NN_TEXT_PROTO_H_
#define VOLKHV_NN_TEXT_PROTO_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"

namespace volkhv::nn {

// Merges `text` into *message (fields the text leaves out keep their values).
// Unknown fields and syntax or type errors fail with
// "<source_name>:<line>:<column>: <parser's message> (in '<that line>')",
// quoting the line so that the key is named even when the parser names only
// the value. Thread-safe.
absl::Status MergeTextProto(std::string_view text, std::string_view source_name,
                            google::protobuf::Message* message);

// Reads a whole text file; errors start with the path. Thread-safe.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_TEXT_PROTO_H_
