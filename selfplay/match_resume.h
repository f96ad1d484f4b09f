// Reading back the finished games of a match from its game file: to resume
// an interrupted match (MatchOptions::resume) or to tally played games
// (selfplay/match_tally.h).
#ifndef VOLKHV_SELFPLAY_MATCH_RESUME_H_
#define VOLKHV_SELFPLAY_MATCH_RESUME_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/game/move.h"
#include "selfplay/match.h"

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

// What becomes of a last game cut off in writing (its result or moves
// missing, fewer moves than its [Plies]): cut from the file, so that a
// resumed match appends after the finished games, or only left out.
enum class UnfinishedLastGame { kCut, kSkip };

// The games of the game file at `path` (none when there is no such file).
// Errors name the file and the game: unreadable, an unfinished game before
// the last, a game without [Round] or [Result], moves that do not replay.
absl::StatusOr<std::vector<FinishedGame>> ReadFinishedGames(
    const Game& game, const std::string& path, UnfinishedLastGame unfinished);

// How a game read back ended (outcome->end, and rules_termination when the
// rules ended it), from its outcome->termination text as PlayGame writes it
// in a game of `game` (the game's name).
void SetEndFromTermination(const std::string& game, GameOutcome* outcome);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_MATCH_RESUME_H_
