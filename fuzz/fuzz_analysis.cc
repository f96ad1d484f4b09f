// The JSON analysis engine (engine/protocol/analysis_engine.h, `volkhv
// analysis`): the bytes as query lines, searched with the uniform evaluator
// (`--net random`) on one worker thread and a small visit limit (8 by
// default, queries asking for more than 64 are refused), so an input runs
// in milliseconds. Every answer must be one JSON object with an "id".
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "engine/protocol/analysis_engine.h"
#include "engine/util/strings.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/random_only_factory.h"
#include "nlohmann/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volkhv;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  protocol::AnalysisEngineOptions options;
  options.threads = 1;
  options.default_max_visits = 8;
  options.max_visits_cap = 64;
  const nn::EvaluatorFactory factory = fuzz::RandomOnlyFactory();
  std::ostringstream out;
  {
    protocol::AnalysisEngine engine(options, factory, &out);
    for (std::string_view line : Split(text, "\n", true)) engine.Submit(line);
    engine.Finish();
  }
  const std::string output = out.str();
  for (std::string_view line : Split(output, "\n", true)) {
    const nlohmann::json answer = nlohmann::json::parse(line, nullptr, false);
    FUZZ_CHECK(answer.is_object() && answer.contains("id"), line);
  }
  return 0;
}
