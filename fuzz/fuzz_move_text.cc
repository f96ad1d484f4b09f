// Move text of both games: the bytes split into moves (SplitMoveText) and
// played from the start position of tavreli, tavlei9 and tavlei11 while
// they parse as legal moves, as `show --moves` and the record readers do;
// every line is also read as one move (ParseMove's lenient forms). A parsed
// move writes back to a text that parses to the same move.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "engine/util/strings.h"
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

void CheckParsed(const volkhv::GameState& state, std::string_view text,
                 volkhv::Move move) {
  volkhv::MoveList legal;
  state.LegalMoves(&legal);
  FUZZ_CHECK(legal.contains(move), text);
  const std::string canonical = state.MoveText(move);
  absl::StatusOr<volkhv::Move> again = state.ParseMove(canonical);
  FUZZ_CHECK(again.ok() && *again == move, canonical);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace volkhv;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> moves = SplitMoveText(text);
  for (const std::unique_ptr<Game>& game : Games()) {
    std::unique_ptr<GameState> state = game->NewInitialState();
    for (std::string_view line : Split(text, "\n", true)) {
      absl::StatusOr<Move> move = state->ParseMove(line);
      if (move.ok()) CheckParsed(*state, line, *move);
    }
    for (const std::string& word : moves) {
      if (state->Result().IsOver()) break;
      absl::StatusOr<Move> move = state->ParseMove(word);
      if (!move.ok()) {
        FUZZ_CHECK(!move.status().message().empty(), word);
        break;
      }
      CheckParsed(*state, word, *move);
      state->Play(*move);
    }
  }
  return 0;
}
