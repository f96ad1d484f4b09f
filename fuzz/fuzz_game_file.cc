// PGN-style game files (engine/records/game_file_reader.h): any bytes parsed
// as a game file, and every game replayed through the rules of
// tavreli, tavlei9 and tavlei11, as `validate` and `analyze --game-file` do.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "fuzz/fuzz_check.h"

namespace {

const std::vector<std::unique_ptr<volkhv::Game>>& Games() {
  static const std::vector<std::unique_ptr<volkhv::Game>>* games = [] {
    auto* g = new std::vector<std::unique_ptr<volkhv::Game>>;
    for (const char* name : {"tavreli", "tavlei9", "tavlei11"}) {
      g->push_back(*volkhv::MakeGame(name));
    }
    return g;
  }();
  return *games;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volkhv;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<RecordedGame>> records = ParseGameFileText(text);
  if (!records.ok()) {
    FUZZ_CHECK(!records.status().message().empty(), text);
    return 0;
  }
  for (const RecordedGame& record : *records) {
    FUZZ_CHECK(record.first_line >= 1, text);
    for (const std::unique_ptr<Game>& game : Games()) {
      const ReplayReport report = ReplayGame(*game, record);
      if (!report.ok) {
        FUZZ_CHECK(!report.error.empty(), text);
        continue;
      }
      FUZZ_CHECK(report.plies >= 0 &&
                     report.plies <= static_cast<int>(record.moves.size()),
                 text);
      FUZZ_CHECK(!report.status.empty(), text);
    }
  }
  return 0;
}
