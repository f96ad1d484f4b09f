// Tavlei position text: any bytes read as a tavlei9, a tavlei11 and a
// tavlei9 with prince_max_steps=3 position; an accepted one writes back to
// the same text, draws, and every method of its game state holds up
// (state_checks.h).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/games/games.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/state_checks.h"

namespace {

const std::vector<std::unique_ptr<volkhv::Game>>& Games() {
  static const std::vector<std::unique_ptr<volkhv::Game>>* games = [] {
    auto* g = new std::vector<std::unique_ptr<volkhv::Game>>;
    g->push_back(*volkhv::MakeGame("tavlei9"));
    g->push_back(*volkhv::MakeGame("tavlei11"));
    g->push_back(*volkhv::MakeGame("tavlei9", {{"prince_max_steps", 3}}));
    return g;
  }();
  return *games;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volkhv;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::unique_ptr<Game>& game : Games()) {
    absl::StatusOr<std::unique_ptr<GameState>> state =
        game->NewStateFromText(text);
    if (!state.ok()) {
      FUZZ_CHECK(!state.status().message().empty(), text);
      continue;
    }
    fuzz::CheckTextReadsBack(*game, **state);
    fuzz::CheckState(*game, **state, /*text_after_moves=*/true);
  }
  return 0;
}
