// Ending match games early from the evaluations the players report
// (search::PlayerEval: the engines' `info score`, the built-in players' own
// evaluation), as cutechess-cli's -draw and -resign do, and the match's
// older --resign-score rule. Evaluations are from the point of view of the
// player who moved; a move without one (a player with no evaluation, such as
// random) breaks every run.
#ifndef VOLKHV_SELFPLAY_ADJUDICATION_H_
#define VOLKHV_SELFPLAY_ADJUDICATION_H_

#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/search/players.h"

namespace volkhv::selfplay {

// cutechess's -draw: a draw once at least `move_number` full moves have
// been played and both players' last `move_count` evaluations each lay
// within `score` centipawns of zero. Off when move_count is 0.
struct DrawRule {
  int move_number = 0;
  int move_count = 0;
  int score = 0;
};

// cutechess's -resign: a player whose last `move_count` evaluations were
// all at least `score` centipawns below zero loses; with `two_sided` only
// when the opponent's last `move_count` were also all at least `score`
// above. Off when move_count is 0.
struct ResignRule {
  int move_count = 0;
  int score = 0;
  bool two_sided = false;
};

// Parse "movenumber=40,movecount=8,score=20" and
// "movecount=3,score=600[,twosided=true]"; errors name the key.
absl::StatusOr<DrawRule> ParseDrawRule(std::string_view text);
absl::StatusOr<ResignRule> ParseResignRule(std::string_view text);

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
  DrawRule draw;
  ResignRule resign;
};

// A game decided by adjudication.
struct Verdict {
  enum class Kind {
    kScore,   // resign_score/resign_evals
    kDraw,    // the draw rule
    kResign,  // the resign rule
  };
  Kind kind = Kind::kScore;
  double first_score = 0.5;  // for the player moving first
  std::string detail;        // "8 moves each within 20 cp after move 40"
};

// The evaluations of one game. Not thread-safe (one game's thread).
class Adjudicator {
 public:
  explicit Adjudicator(const Adjudication& rules) : rules_(rules) {}
  // After a move by `mover` (0: the player moving first) whose evaluation
  // is `eval`; `plies` is the game's length after it (the opening's
  // included). A verdict ends the game.
  std::optional<Verdict> AfterMove(
      int mover, const std::optional<search::PlayerEval>& eval, int plies);

 private:
  Adjudication rules_;
  int streak_side_ = -1;
  int streak_ = 0;
  std::deque<int> recent_[2];  // each player's last evaluations, newest last
};

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_ADJUDICATION_H_
