// The UCI-style engine (engine/protocol/uci_engine.h, `volkhv engine`): the
// bytes as command lines, searched with the uniform evaluator (`--net
// random`). Every `go` gets `nodes 64` appended, so each search stops after
// 64 playouts whatever else it asks for (an infinite or pondering one is
// stopped by the next command or the end of the input; after ponderhit the
// 64 apply), and an input runs in
// milliseconds; the clock values of `go` are read but cannot make a search
// long. Every reply must be one of the protocol's.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/protocol/uci_engine.h"
#include "engine/util/strings.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/random_only_factory.h"

namespace {

// The line as UciEngine tokenizes it; a `go` line gets `nodes 64` appended
// so that every search ends quickly (numbers of any length stay as given:
// huge clocks are clamped by the engine, issue 22, item 13).
std::string Rewrite(std::string_view line) {
  const std::vector<std::string_view> tokens =
      volkhv::Split(line, " \t\r\n", true);
  if (tokens.empty() || tokens[0] != "go") return std::string(line);
  std::string go = "go";
  for (size_t i = 1; i < tokens.size(); ++i) {
    go += ' ';
    go += tokens[i];
  }
  return go + " nodes 64";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volkhv;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string commands;
  for (std::string_view line : Split(text, "\n", false)) {
    commands += Rewrite(line);
    commands += '\n';
  }
  protocol::UciEngineOptions options;
  options.progress_interval_ms = 1;
  const nn::EvaluatorFactory factory = fuzz::RandomOnlyFactory();
  std::ostringstream out;
  {
    protocol::UciEngine engine(options, factory, &out);
    std::istringstream in(commands);
    engine.Run(in);
  }
  // Every reply is one of the protocol's.
  const std::string output = out.str();
  for (std::string_view line : Split(output, "\n", true)) {
    const std::string_view word = line.substr(0, line.find(' '));
    FUZZ_CHECK(word == "id" || word == "option" || word == "uciok" ||
                   word == "readyok" || word == "info" || word == "bestmove",
               line);
  }
  return 0;
}
