// Match statistics as chess engine testers compute them (fishtest,
// cutechess, fastchess): Elo from a score with a 95 % interval, likelihood
// of superiority, pentanomial counts of game pairs, and the sequential
// probability ratio test with fishtest's generalized log-likelihood ratio
// (server/fishtest/stats/LLRcalc.py: LLR_normalized, LLR_logistic).
#ifndef VOLKHV_SELFPLAY_ELO_H_
#define VOLKHV_SELFPLAY_ELO_H_

#include <array>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace volkhv::selfplay {

// Games of one player against another, from that player's point of view.
struct GameCounts {
  int wins = 0;
  int draws = 0;
  int losses = 0;
  int games() const { return wins + draws + losses; }
  // (wins + draws / 2) / games; 0.5 without games.
  double Score() const;
};

// Game pairs (one opening, colours swapped) by the pair's points for the
// player: index 0 = two losses (LL), 1 = LD, 2 = WL or DD, 3 = WD, 4 = WW.
using PairCounts = std::array<int, 5>;
// The index of a pair from the player's two game scores (each 0, 0.5 or 1).
int PairIndex(double first_score, double second_score);

// Logistic Elo of an expected score (clamped to [0.001, 0.999] as fishtest
// does, so a perfect score reads about +1200) and back.
double EloFromScore(double score);
double ScoreFromElo(double elo);

// Standard normal distribution function and its inverse.
double NormalCdf(double x);
double NormalQuantile(double p);

struct EloEstimate {
  int games = 0;
  double score = 0.5;     // mean points per game
  double elo = 0;         // logistic Elo of the score
  double elo_low = 0;     // 95 % interval (normal approximation of the
  double elo_high = 0;    // score's mean, its variance from the data)
  double elo_error = 0;   // (elo_high - elo_low) / 2, the "+/-" of reports
  double los = 0.5;       // likelihood of superiority, P(true score > 0.5)
  double nelo = 0;        // normalized Elo (fishtest), per game
  double nelo_error = 0;  // its 95 % half-width
  // Every game (pair) the same outcome: the data has no variance to
  // estimate. Then the interval is exact and one-sided: with 97.5 % the
  // outcome's probability is at least b = 0.025^(1/n) over n samples
  // (Clopper-Pearson), so the score lies in [v b, v b + 1 - b] for the
  // outcome's score v; nelo and nelo_error are 0. A perfect record (all
  // won, all lost) has elo at the +/-1199.8 clamp and one open end.
  bool single_outcome = false;
  int perfect = 0;  // +1 all won, -1 all lost, 0 otherwise
};

// From game counts (trinomial), or from pair counts (pentanomial: the
// variance of pairs, which the opening correlates, is used). Zero counts are
// replaced by 0.001 first, as fishtest's get_elo does (except when every
// sample is the same outcome, see EloEstimate::single_outcome).
EloEstimate EstimateElo(const GameCounts& counts);
EloEstimate EstimateElo(const PairCounts& pairs);

// Generalized log-likelihood ratios of fishtest's LLRcalc.py. `results`
// holds either 3 counts (losses, draws, wins) or 5 (pair counts as
// PairCounts). Normalized Elo bounds (fishtest's default model) or logistic
// Elo bounds.
double LlrNormalized(double nelo0, double nelo1,
                     std::span<const double> results);
double LlrLogistic(double elo0, double elo1, std::span<const double> results);

enum class EloModel { kNormalized, kLogistic };

// H0: Elo = elo0 against H1: Elo = elo1, with error probabilities alpha
// (accepting H1 when H0 holds) and beta.
struct SprtParams {
  double elo0 = 0;
  double elo1 = 5;
  double alpha = 0.05;
  double beta = 0.05;
  EloModel model = EloModel::kNormalized;

  double LowerBound() const;  // log(beta / (1 - alpha))
  double UpperBound() const;  // log((1 - beta) / alpha)
  // "elo0=0,elo1=5,alpha=0.05,beta=0.05,model=normalized".
  std::string Describe() const;
};

// Parses "elo0=0,elo1=5,alpha=0.05,beta=0.05[,model=normalized|logistic]";
// omitted keys keep their defaults. Errors name the key or value at fault.
absl::StatusOr<SprtParams> ParseSprtParams(std::string_view text);

enum class SprtVerdict { kContinue, kAcceptH0, kAcceptH1 };
// "continue", "H0 accepted (fail)", "H1 accepted (pass)".
std::string_view SprtVerdictName(SprtVerdict verdict);

struct SprtStatus {
  double llr = 0;
  double lower = 0;
  double upper = 0;
  SprtVerdict verdict = SprtVerdict::kContinue;
};
// The test on game counts (when games are not paired) or on pair counts.
SprtStatus EvaluateSprt(const SprtParams& params, const GameCounts& counts);
SprtStatus EvaluateSprt(const SprtParams& params, const PairCounts& pairs);

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_ELO_H_
