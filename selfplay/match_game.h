// One game of a match (selfplay/match.h): the opening's moves, then the
// players in turn, with their clocks, the adjudication rules and the
// players' failures; the game as its outcome and its game-file record.
#ifndef VOLKHV_SELFPLAY_MATCH_GAME_H_
#define VOLKHV_SELFPLAY_MATCH_GAME_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "engine/game/game.h"
#include "engine/records/game_file_writer.h"
#include "engine/search/players.h"
#include "selfplay/match.h"

namespace volkhv::selfplay {

struct PlayedGame {
  GameOutcome outcome;
  GameFileRecord record;
  bool aborted = false;  // `halted` said stop before the game ended
};

// A game's start: the opening's position (the game's start when empty);
// errors name a malformed position.
absl::StatusOr<std::unique_ptr<GameState>> StartState(const Game& game,
                                                      const Opening& opening);

// Plays one game; the opening must be valid (MakeOpening checked it).
// `clocks[0]` is the first player's time control, `clocks[1]` the
// second's (absent: no clock). `halted` is asked before every move and
// after any failed one. Fills the outcome's first_score, plies,
// termination, detail, end, moves, opening_plies, evals and the record's
// moves, comments, result and termination.
PlayedGame PlayGame(const Game& game, const Opening& opening,
                    search::Player* first, search::Player* second,
                    const std::optional<ClockSpec> clocks[2],
                    const MatchOptions& options,
                    const std::function<bool()>& halted);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_MATCH_GAME_H_
