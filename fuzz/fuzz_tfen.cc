// TFEN (Tavreli position text): ParseTfen on any bytes; a position it
// accepts writes back to a TFEN that reads back the same, and every method
// of its game state holds up (state_checks.h).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/games/games.h"
#include "engine/tavreli/tfen.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/state_checks.h"

namespace {

const volkhv::Game& Tavreli() {
  static const std::unique_ptr<volkhv::Game> game =
      *volkhv::MakeGame("tavreli");
  return *game;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volkhv;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tavreli::Position> position = tavreli::ParseTfen(text);
  if (!position.ok()) {
    FUZZ_CHECK(!position.status().message().empty(), text);
    return 0;
  }
  const std::string tfen = tavreli::ToTfen(*position);
  absl::StatusOr<tavreli::Position> back = tavreli::ParseTfen(tfen);
  FUZZ_CHECK(back.ok(), tfen + ": " + std::string(back.status().message()));
  FUZZ_CHECK(tavreli::ToTfen(*back) == tfen, tfen);

  absl::StatusOr<std::unique_ptr<GameState>> state =
      Tavreli().NewStateFromText(text);
  FUZZ_CHECK(state.ok(), text);
  FUZZ_CHECK((*state)->PositionText() == tfen, tfen);
  // The text after every move reads back too (the move counters stop at
  // 65535 instead of wrapping: issue 22, item 7).
  fuzz::CheckState(Tavreli(), **state, /*text_after_moves=*/true);
  return 0;
}
