// Matches between players (selfplay/player_spec.h): game pairs with the
// colours swapped on one opening, openings from a file or random plies,
// parallel games, adjudication, running statistics (Elo, LOS, pentanomial
// SPRT with early stop), round robins for more than two players, and the
// games written as PGN-style files (engine/records/game_file_writer.h).
#ifndef VOLKHV_SELFPLAY_MATCH_H_
#define VOLKHV_SELFPLAY_MATCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/records/game_file_writer.h"
#include "selfplay/elo.h"
#include "selfplay/player_spec.h"

namespace volkhv::selfplay {

// Ends games early. A zero field is off.
struct Adjudication {
  // A game still going after this many plies (the opening's included) is a
  // draw.
  int max_plies = 0;
  // Hopeless games: when `resign_evals` consecutive evaluations reported by
  // the players (any player that reports one; players without evaluations,
  // such as random, are skipped) all give the same side at least
  // `resign_score` centipawns, that side wins.
  int resign_score = 0;
  int resign_evals = 0;
};

// Where games start. Every opening is played twice, once with each player
// moving first.
struct Opening {
  std::string position;            // the game's notation; "" = the start
  std::vector<std::string> moves;  // played from it before the players move
  std::string description;         // [Opening] tag
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
  // Only for two players: stop when the test decides.
  std::optional<SprtParams> sprt;
  // Evaluations as {comments} in the game file.
  bool comments = true;
  // Game file ("" = none): every finished game, in finishing order.
  std::string pgn_path;
  std::string event = "volkhv match";
  // [Variant] tag: "standard" or the game's options ("prince_max_steps=3").
  std::string variant = "standard";
};

// One finished game.
struct GameOutcome {
  // How it ended: by the rules of the game, or adjudicated.
  enum class End { kRules, kMaxPlies, kScore, kIllegalMove };

  int round = 0;    // 1-based, in scheduling order
  int pair = 0;     // 0-based pair index within its pairing
  int pairing = 0;  // index into MatchReport::pairings
  int first = 0;    // player index moving first
  int second = 0;
  double first_score = 0.5;  // 1, 0.5 or 0 for the first player
  int plies = 0;             // opening included
  std::string termination;   // "checkmate", "adjudication: 500 plies", ...
  End end = End::kRules;
  Termination rules_termination = Termination::kNone;  // when kRules
  std::string start_position;           // before the opening's moves
  std::vector<Move> moves;              // every ply, the opening's included
  std::vector<std::string> move_texts;  // the same in canonical notation
};

// The results of two players against each other, from `a`'s side.
struct PairingStats {
  int a = 0;
  int b = 0;
  GameCounts counts;
  PairCounts pairs{};           // completed pairs only
  int first_mover_points2 = 0;  // points of whoever moved first, doubled
  int games = 0;

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
  double seconds = 0;

  // One line: games, W-D-L of the first pairing, score, Elo, LLR.
  std::string ProgressLine() const;
  // The full table: per pairing W/D/L, score, Elo +/- 95 %, LOS, nElo; the
  // SPRT; standings when more than two players.
  std::string Summary() const;
};

// Called after every finished game with the report so far (serialized: one
// call at a time).
using MatchCallback = std::function<void(const MatchReport&)>;

// Plays every pairing of `players` (two: one match; more: a round robin).
// Errors: fewer than two players, SPRT with more than two, a bad opening,
// an unwritable game file.
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
