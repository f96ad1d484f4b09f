// Matches between players (selfplay/player_spec.h): game pairs with the
// colours swapped on one opening, openings from a file or random plies,
// parallel games, game clocks (selfplay/game_clock.h), adjudication
// (selfplay/adjudication.h), running statistics (Elo, LOS, pentanomial SPRT
// with early stop), round robins or gauntlets for more than two players,
// the games written as PGN-style files (engine/records/game_file_writer.h),
// a match resumed from its game file, and a clean stop on request.
#ifndef VOLKHV_SELFPLAY_MATCH_H_
#define VOLKHV_SELFPLAY_MATCH_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/records/game_file_writer.h"
#include "selfplay/adjudication.h"
#include "selfplay/elo.h"
#include "selfplay/game_clock.h"
#include "selfplay/player_spec.h"

namespace volkhv::selfplay {

// Where games start. Every opening is played twice, once with each player
// moving first.
struct Opening {
  std::string position;            // the game's notation; "" = the start
  std::vector<std::string> moves;  // played from it before the players move
  std::string description;         // [Opening] tag
};

// Who plays whom when there are more than two players.
enum class Tournament {
  kRoundRobin,  // every player against every other
  kGauntlet,    // the first player against each other one
};

struct MatchOptions {
  // Games per pairing of players (rounded up to an even number: games come
  // in pairs of one opening with colours swapped).
  int games = 100;
  // Elo and SPRT from pentanomial counts of game pairs (as fishtest), else
  // from game counts.
  bool pentanomial = true;
  // Start positions (one per pair, cycled); when empty, `random_plies`
  // uniformly random plies from the start (none: every pair starts at the
  // start position).
  std::vector<std::string> opening_positions;
  int random_plies = 0;
  int concurrency = 1;  // games played at once (threads)
  uint64_t seed = 1;    // openings and the players' own randomness
  Adjudication adjudication;
  Tournament tournament = Tournament::kRoundRobin;
  // Every player's clock, unless its spec has its own (tc=); none: players
  // move by their own limits and nobody loses on time.
  std::optional<ClockSpec> clock;
  int64_t time_margin_ms = 0;  // a move may overrun its clock by this much
  // Only for two players: stop when the test decides.
  std::optional<SprtParams> sprt;
  // Evaluations as {comments} in the game file.
  bool comments = true;
  // Game file ("" = none): every finished game, in finishing order.
  std::string pgn_path;
  // Continue the match whose games `pgn_path` holds: its finished games
  // (matched to the schedule by their [Round] and players) count and are
  // not played again; a game cut off in writing is dropped from the file.
  // With the same options and seed the result is the uninterrupted
  // match's (given players that play the same move in the same position).
  bool resume = false;
  // When set and true, no game starts and games in progress are abandoned
  // (not counted, not written); RunMatch returns what was finished.
  const std::atomic<bool>* interrupt = nullptr;
  std::string event = "volkhv match";
  // [Variant] tag: "standard" or the game's options ("prince_max_steps=3").
  std::string variant = "standard";
};

// One finished game.
struct GameOutcome {
  // How it ended: by the rules of the game, or adjudicated.
  enum class End {
    kRules,
    kMaxPlies,
    kScore,        // Adjudication::resign_score
    kIllegalMove,  // a built-in player's illegal move
    kTimeForfeit,  // the loser overran its clock
    kForfeit,      // an outside engine exited, stalled or moved illegally
    kDraw,         // the draw rule
    kResignation,  // the resign rule
  };

  int round = 0;    // 1-based, in scheduling order
  int pair = 0;     // 0-based pair index within its pairing
  int pairing = 0;  // index into MatchReport::pairings
  int first = 0;    // player index moving first
  int second = 0;
  double first_score = 0.5;  // 1, 0.5 or 0 for the first player
  int plies = 0;             // opening included
  // "checkmate", "adjudication: 500 plies", "time forfeit", ...
  std::string termination;
  // Why, when the match ended it ("" for the rules): "alphabeta:depth=9
  // took 1520 ms with 1000 ms left", "the engine exited with status 3".
  std::string detail;
  End end = End::kRules;
  bool resumed = false;  // read back from the game file, not played now
  Termination rules_termination = Termination::kNone;  // when kRules
  std::string start_position;           // before the opening's moves
  std::vector<Move> moves;              // every ply, the opening's included
  std::vector<std::string> move_texts;  // the same in canonical notation
  // How many of `moves` are the opening's (played by neither player); 0 for
  // a resumed game, whose opening is not known.
  int opening_plies = 0;
  // What the mover thought of the position at each player's ply,
  // evals[i] for moves[opening_plies + i] (absent for a player without an
  // evaluation); empty for a resumed game.
  std::vector<std::optional<search::PlayerEval>> evals;
};

// The results of two players against each other, from `a`'s side.
struct PairingStats {
  int a = 0;
  int b = 0;
  GameCounts counts;
  PairCounts pairs{};           // completed pairs only
  int first_mover_points2 = 0;  // points of whoever moved first, doubled
  int games = 0;

  // Counts a game in counts, games and first_mover_points2: `a_score` is
  // a's (1, 0.5 or 0), `first_score` the first mover's.
  void CountGame(double a_score, double first_score);
  EloEstimate Elo(bool pentanomial) const;
};

struct MatchReport {
  std::vector<std::string> players;
  std::vector<PairingStats> pairings;
  std::vector<GameOutcome> games;  // in finishing order
  int games_scheduled = 0;
  bool pentanomial = true;
  std::optional<SprtParams> sprt_params;
  std::optional<SprtStatus> sprt;  // two players with SPRT
  bool stopped_early = false;      // the SPRT decided
  bool interrupted = false;        // MatchOptions::interrupt stopped it
  int games_resumed = 0;           // of games, read back from the file
  double seconds = 0;              // this run's, resumed games not counted
  bool tally = false;  // every game read from game files (TallyGames)

  // One line: games, W-D-L of the first pairing, score, Elo, LLR (or the
  // points of each player), and the time left at this run's pace.
  std::string ProgressLine() const;
  // The full table: per pairing W/D/L, score, Elo +/- 95 %, LOS, nElo; how
  // many games the match ended (time forfeits, adjudications, ...); with
  // more than two players a table of the pairings and standings; the SPRT.
  std::string Summary() const;
};

// Called after every finished game with the report so far (serialized: one
// call at a time).
using MatchCallback = std::function<void(const MatchReport&)>;

// Plays every pairing of `players` (two: one match; more: a round robin or
// a gauntlet). Errors: fewer than two players, SPRT with more than two, a
// bad opening, an unwritable game file; with `resume`, a game file that is
// not this match's (the error names the game).
absl::StatusOr<MatchReport> RunMatch(
    const Game& game,
    const std::vector<std::shared_ptr<PlayerFactory>>& players,
    const MatchOptions& options, const MatchCallback& on_game = {});

// Reads start positions, one per line in the game's notation (blank lines
// and lines starting with '#' skipped); errors name the line.
absl::StatusOr<std::vector<std::string>> ReadOpeningsFile(
    const Game& game, const std::string& path);

// The opening of pair `index`: the options' positions cycled, or
// random_plies random plies from the start drawn from (seed, index) (a draw
// that ends the game is drawn again), or the start position.
absl::StatusOr<Opening> MakeOpening(const Game& game,
                                    const MatchOptions& options, int index);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_MATCH_H_
