// Reading PGN-style game files (the format of
// tests/data/tavreli-published-games.txt; written by game_file_writer.h):
// `[Key "value"]` tag lines, then move text, games separated by tags; and the
// replay of a recorded game through the rules. Game-neutral.
#ifndef VOLKHV_ENGINE_RECORDS_GAME_FILE_READER_H_
#define VOLKHV_ENGINE_RECORDS_GAME_FILE_READER_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"

namespace volkhv {

struct RecordedGame {
  std::vector<std::pair<std::string, std::string>> tags;  // in file order
  std::vector<std::string> moves;  // as written, move numbers removed
  int first_line = 0;              // 1-based line of the game's first line

  // The value of a tag, or "" when absent.
  std::string Tag(std::string_view key) const;
};

// Splits move text into moves: drops move numbers ("12." "12..."), results
// ("1-0" "0-1" "1/2-1/2" "*"), {comments} and ;comments, and joins the spaced
// form ("b2 x d4", "f3 (2) x f6") into one move.
std::vector<std::string> SplitMoveText(std::string_view text);

// The offset in `text` of a `{` comment that is never closed (it would
// swallow the rest of the move text), or std::string_view::npos.
size_t UnclosedComment(std::string_view text);

// Parses a whole game file's text. Errors name the line (a malformed tag; a
// `{` comment left open).
absl::StatusOr<std::vector<RecordedGame>> ParseGameFileText(
    std::string_view text);
// Reads and parses a file. Errors name the file.
absl::StatusOr<std::vector<RecordedGame>> ReadGameFile(const std::string& path);

// The outcome of replaying one recorded game.
struct ReplayReport {
  bool ok = false;
  std::string error;   // when !ok: "ply 7 (e2-e5): illegal move ..."
  int plies = 0;       // plies replayed legally
  std::string status;  // when ok: ongoing, check, checkmate, stalemate, ...
  std::string final_position;
};

// Replays a game from its [TFEN]/[Position] tag (else the start position),
// checks every ply, and the [Plies] tag when present.
ReplayReport ReplayGame(const Game& game, const RecordedGame& record);

// The position's status: for a game over, its termination's status where the
// game module gives one (TerminationInfo::status: "checkmate", "stalemate"),
// else "draw (repetition)" or "decided (king captured)"; else "check" or
// "ongoing".
std::string StatusWord(const GameState& state);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_RECORDS_GAME_FILE_READER_H_
