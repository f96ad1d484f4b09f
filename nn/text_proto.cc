#include "nn/text_proto.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/util/files.h"
#include "engine/util/strings.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace volkhv::nn {
namespace {

// Keeps the parser's first error.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (error_.empty()) {
      line_ = line;
      error_ = Cat(line + 1, ":", column + 1, ": ", message);
    }
  }
  const std::string& error() const { return error_; }
  int line() const { return line_; }

 private:
  std::string error_;
  int line_ = -1;
};

}  // namespace

absl::Status MergeTextProto(std::string_view text, std::string_view source_name,
                            google::protobuf::Message* message) {
  google::protobuf::TextFormat::Parser parser;
  FirstErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(false);
  const std::string input(text);
  if (parser.MergeFromString(input, message)) return absl::OkStatus();
  std::string error = Cat(source_name, ":", errors.error());
  if (errors.line() >= 0) {
    const std::vector<std::string_view> lines = Split(input, "\n", false);
    if (errors.line() < static_cast<int>(lines.size())) {
      const std::string_view line = Trim(lines[errors.line()]);
      if (!line.empty()) Append(&error, " (in '", line, "')");
    }
  }
  return absl::InvalidArgumentError(error);
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  return ReadBoundedFile(path, kMaxConfigFileBytes, "config file");
}

}  // namespace volkhv::nn
