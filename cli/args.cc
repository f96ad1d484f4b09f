#include "cli/args.h"

#include <cmath>

#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::cli {

absl::StatusOr<CommandLine> CommandLine::Parse(
    const std::vector<std::string>& args, const std::vector<OptionSpec>& specs,
    int max_positional) {
  CommandLine cl;
  for (const OptionSpec& spec : specs)
    cl.values_[spec.name] = spec.default_value;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      if (static_cast<int>(cl.positional_.size()) >= max_positional) {
        return absl::InvalidArgumentError(
            Cat("unexpected argument '", arg, "'"));
      }
      cl.positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_inline_value = false;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline_value = true;
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(Cat("unknown option '--", name, "'"));
    }
    if (spec->value_name.empty()) {
      if (has_inline_value) {
        return absl::InvalidArgumentError(
            Cat("option '--", name, "' takes no value"));
      }
    } else if (!has_inline_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(Cat(
            "option '--", name, "' needs a value (", spec->value_name, ")"));
      }
      value = args[++i];
    }
    cl.values_[name] = value;
    cl.all_values_[name].push_back(value);
    cl.given_[name] = true;
  }
  return cl;
}

const std::string& CommandLine::Get(const std::string& name) const {
  static const std::string kEmpty;
  auto it = values_.find(name);
  return it == values_.end() ? kEmpty : it->second;
}

std::vector<std::string> CommandLine::GetAll(const std::string& name) const {
  auto it = all_values_.find(name);
  return it == all_values_.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<int> CommandLine::GetInt(const std::string& name, int min,
                                        int max) const {
  return ParseInt<int>(Get(name), Cat("option '--", name, "'"), min, max);
}

absl::StatusOr<double> CommandLine::GetDouble(const std::string& name,
                                              double min, double max) const {
  return ParseDouble(Get(name), Cat("option '--", name, "'"), min, max);
}

absl::StatusOr<uint64_t> CommandLine::GetUint64(const std::string& name) const {
  return ParseInt<uint64_t>(Get(name), Cat("option '--", name, "'"));
}

std::string OptionsHelp(const std::vector<OptionSpec>& specs) {
  std::string out;
  for (const OptionSpec& s : specs) {
    std::string left = Cat("  --", s.name);
    if (!s.value_name.empty()) Append(&left, " ", s.value_name);
    if (left.size() < 26) left.resize(26, ' ');
    Append(&out, left, " ", s.help);
    if (!s.default_value.empty()) {
      Append(&out, " (default: ", s.default_value, ")");
    }
    out += '\n';
  }
  return out;
}

}  // namespace volkhv::cli
