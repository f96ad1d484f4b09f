// Reading back the finished games of an interrupted match from its game
// file (MatchOptions::resume).
#ifndef VOLKHV_SELFPLAY_MATCH_RESUME_H_
#define VOLKHV_SELFPLAY_MATCH_RESUME_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/game/move.h"

namespace volkhv::selfplay {

// A game of an earlier run of the match.
struct FinishedGame {
  int round = 0;  // [Round]
  std::string first_player;
  std::string second_player;
  double first_score = 0.5;  // from [Result]
  std::string termination;   // [Termination]
  std::string detail;        // [TerminationDetails]
  std::string start_position;
  std::vector<Move> moves;              // replayed from start_position
  std::vector<std::string> move_texts;  // as written
};

// The games of the game file at `path` (none when there is no such file).
// A last game cut off in writing (its result or moves missing, fewer moves
// than its [Plies]) is cut from the file. Errors name the file and the
// game: unreadable, an unfinished game before the last, a game without
// [Round] or [Result], moves that do not replay.
absl::StatusOr<std::vector<FinishedGame>> ReadFinishedGames(
    const Game& game, const std::string& path);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_MATCH_RESUME_H_
