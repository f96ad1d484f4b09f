// The statistics of games already played, read from match game files
// (`match --pgn-out`), several matches' together: what `volkhv elo` prints.
#ifndef VOLKHV_SELFPLAY_MATCH_TALLY_H_
#define VOLKHV_SELFPLAY_MATCH_TALLY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "selfplay/elo.h"
#include "selfplay/match.h"
#include "selfplay/match_resume.h"

namespace volkhv::selfplay {

// The finished games of one game file (ReadFinishedGames).
struct PlayedGames {
  std::string file;  // named in errors
  std::vector<FinishedGame> games;
};

struct TallyOptions {
  // The player whose side the report takes: the first of the players, so
  // `a` of every pairing it plays. "" = the first mover of the first game.
  std::string player;
  // Elo and SPRT from game pairs (PairCounts), else from game counts.
  bool pentanomial = true;
  std::optional<SprtParams> sprt;  // needs the games of exactly two players
};

// A report of the games of `files`, all of the game named `game`, as
// RunMatch would give for them (MatchReport::tally set): the players in the
// order they first appear (options.player first), one pairing for each two
// players that met, from the side of the one that appears first.
//
// Two games pair up when they are the rounds 2k-1 and 2k of one file, as
// RunMatch schedules a pair: then they must swap the same two players and
// start from the same position, or the file is not a match's and is
// refused. A game without its pair (an interrupted match) counts in the
// game counts only, as in RunMatch.
//
// Errors: no games, options.player not among the players (the error lists
// them), SPRT without exactly two players, a round twice in one file, a
// pair that is not one.
absl::StatusOr<MatchReport> TallyGames(const std::string& game,
                                       const std::vector<PlayedGames>& files,
                                       const TallyOptions& options);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_MATCH_TALLY_H_
