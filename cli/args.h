// A small command-line parser for the subcommands: declared options with help
// texts and defaults, `--name value`, `--name=value` and `--flag`.
#ifndef VOLKHV_CLI_ARGS_H_
#define VOLKHV_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace volkhv::cli {

struct OptionSpec {
  std::string name;        // without the leading dashes
  std::string value_name;  // empty for a flag
  std::string default_value;
  std::string help;
};

class CommandLine {
 public:
  // Unknown options, missing values and too many positionals are errors.
  static absl::StatusOr<CommandLine> Parse(const std::vector<std::string>& args,
                                           const std::vector<OptionSpec>& specs,
                                           int max_positional);

  // The value given (the last one when given more than once), else the
  // declared default.
  const std::string& Get(const std::string& name) const;
  // Every value given, in order (a repeatable option); empty when not given.
  std::vector<std::string> GetAll(const std::string& name) const;
  bool Given(const std::string& name) const { return given_.count(name) > 0; }
  bool Flag(const std::string& name) const { return Given(name); }
  // Errors name the option.
  absl::StatusOr<int> GetInt(const std::string& name, int min, int max) const;
  // A finite number in [min, max]. Errors name the option.
  absl::StatusOr<double> GetDouble(const std::string& name, double min,
                                   double max) const;
  // A non-negative 64-bit integer (seeds). Errors name the option.
  absl::StatusOr<uint64_t> GetUint64(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> all_values_;
  std::map<std::string, bool> given_;
  std::vector<std::string> positional_;
};

// "  --name VALUE  help (default: x)" lines.
std::string OptionsHelp(const std::vector<OptionSpec>& specs);

}  // namespace volkhv::cli

#endif  // VOLKHV_CLI_ARGS_H_
