// PGN-style game files of matches and self-play: `[Key "value"]` tags, then
// the moves in the game's canonical notation with move numbers, optional
// `{evaluation}` comments and the result, as engine/records/game_file_reader.h
// (and so `volkhv validate`) reads them back.
#ifndef VOLKHV_ENGINE_RECORDS_GAME_FILE_WRITER_H_
#define VOLKHV_ENGINE_RECORDS_GAME_FILE_WRITER_H_

#include <fstream>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "engine/game/game.h"

namespace volkhv {

// One game as written to a file.
struct GameFileRecord {
  std::string event;         // [Event]
  std::string date;          // [Date] "2026.11.01"
  int round = 0;             // [Round], when > 0
  std::string game;          // [Game] the game's registered name
  std::string variant;       // [Variant] "standard" or the game's options
  std::string first_title;   // tag of the first player: "White", "Attackers"
  std::string second_title;  // "Black", "Defenders"
  std::string first_player;
  std::string second_player;
  std::string result;       // [Result] "1-0", "0-1", "1/2-1/2" or "*"
  std::string termination;  // [Termination] "checkmate", "adjudication ..."
  // [TFEN] the start position in the game's notation; the moves follow it.
  std::string start_position;
  // Whether the start position has the second player to move (move text
  // then starts "1...").
  bool second_to_move = false;
  std::vector<std::string> moves;     // canonical notation
  std::vector<std::string> comments;  // per move ("" = none); may be empty
  // Further tags, written after the standard ones.
  std::vector<std::pair<std::string, std::string>> extra_tags;
};

// The tag name of a player side: "white" -> "White".
std::string SideTitle(const std::string& player_name);
// "1-0" when the first player won (score 1), "0-1", "1/2-1/2".
std::string ResultText(double first_player_score);
// Today's date as "YYYY.MM.DD" (local time).
std::string TodayDate();

// The game as text: tags (Event, Date, Round, Game, Variant, the two players,
// Result, TFEN, Plies, Termination, then extra tags), a blank line, the move
// text wrapped at 80 columns ending with the result, and a blank line.
std::string FormatGameFile(const GameFileRecord& record);

// Appends games to a file; thread-safe (games are written whole, in the
// order Append is called).
class GameFileWriter {
 public:
  // Creates or truncates `path`; with `append`, keeps what it holds and
  // adds after it.
  absl::Status Open(const std::string& path, bool append = false);
  absl::Status Append(const GameFileRecord& record);
  const std::string& path() const { return path_; }

 private:
  std::mutex mutex_;
  std::ofstream out_;
  std::string path_;
};

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_RECORDS_GAME_FILE_WRITER_H_
