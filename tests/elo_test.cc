// Match statistics (selfplay/elo.h) against known values: Elo of a score,
// its 95 % interval and LOS against the formulas, pentanomial counting, and
// SPRT log-likelihood ratios against published examples.
//
// LLR sources: fishtest's LLRcalc.py (server/fishtest/stats/LLRcalc.py,
// official-stockfish/fishtest: LLR_normalized, LLR_logistic), whose results
// fastchess pins in its test suite (app/tests/sprt_test.cpp,
// Disservin/fastchess: "normalized pentanomial 1/2", "logistic pentanomial
// 1/2", "normalized trinomial 1/2", "logistic trinomial 1/2", to 0.01). A
// pure-Python port of LLRcalc.py (scipy's brentq replaced by bisection)
// gives the same values (2.2504, 3.0102, -3.0741, -4.9787, 0.9233, 2.2975,
// -1.5719, -2.5930) and the further pinned values below. (fastchess's
// extreme cases of all-draws or all-WW results are left out: fishtest stops
// its MLE iteration after 10 steps and fastchess does not, so they differ.)
#include "selfplay/elo.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "selfplay/match.h"

namespace volkhv::selfplay {
namespace {

TEST(EloTest, EloOfAScore) {
  // 400 * log10(0.75 / 0.25) = 400 * log10(3).
  EXPECT_NEAR(EloFromScore(0.75), 190.8485, 1e-3);
  EXPECT_NEAR(EloFromScore(0.5), 0.0, 1e-12);
  EXPECT_NEAR(EloFromScore(0.25), -190.8485, 1e-3);
  EXPECT_NEAR(ScoreFromElo(190.8485), 0.75, 1e-6);
  EXPECT_NEAR(ScoreFromElo(-400), 1.0 / 11, 1e-12);
  // Clamped to [0.001, 0.999] as fishtest's elo().
  EXPECT_NEAR(EloFromScore(1.0), 400 * std::log10(999.0), 1e-9);
}

TEST(EloTest, NormalDistribution) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-9);
  EXPECT_NEAR(NormalQuantile(0.001), -3.090232306167813, 1e-9);
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(NormalCdf(1.96), 0.9750021048517796, 1e-12);
}

// Score 0.75 over 100 games (75 wins, 25 losses): +190.8 Elo; the interval
// is that of the mean score, mu +/- 1.96 * sqrt(mu (1 - mu) / n), in Elo.
TEST(EloTest, ScoreOfThreeQuartersOverAHundredGames) {
  const EloEstimate e = EstimateElo(GameCounts{75, 0, 25});
  EXPECT_EQ(e.games, 100);
  EXPECT_NEAR(e.score, 0.75, 1e-5);
  EXPECT_NEAR(e.elo, 190.8, 0.05);
  const double se = std::sqrt(0.75 * 0.25 / 100);
  const double low =
      400 * std::log10((0.75 - 1.959964 * se) / (1 - (0.75 - 1.959964 * se)));
  const double high =
      400 * std::log10((0.75 + 1.959964 * se) / (1 - (0.75 + 1.959964 * se)));
  // The draw count 0 is regularized to 0.001 (fishtest): a hair's change.
  EXPECT_NEAR(e.elo_low, low, 0.05);
  EXPECT_NEAR(e.elo_high, high, 0.05);
  EXPECT_NEAR(e.elo_low, 119.2, 0.1);
  EXPECT_NEAR(e.elo_high, 281.5, 0.1);
  EXPECT_NEAR(e.elo_error, (high - low) / 2, 0.05);
  EXPECT_NEAR(e.elo_error, 81.15, 0.05);
  // LOS = Phi((mu - 0.5) / se) = Phi(5.77).
  EXPECT_NEAR(e.los, 0.5 * std::erfc(-(0.25 / se) / std::sqrt(2.0)), 1e-6);
  EXPECT_GT(e.los, 0.999999);
}

TEST(EloTest, IntervalWithDraws) {
  // 60 wins, 20 draws, 20 losses: mu = 0.7, per-game variance
  // 0.6 * 0.09 + 0.2 * 0.04 + 0.2 * 0.49 = 0.16.
  const EloEstimate e = EstimateElo(GameCounts{60, 20, 20});
  EXPECT_NEAR(e.score, 0.7, 1e-12);
  EXPECT_NEAR(e.elo, 400 * std::log10(0.7 / 0.3), 1e-9);
  const double se = std::sqrt(0.16 / 100);
  EXPECT_NEAR(e.elo_low, EloFromScore(0.7 - NormalQuantile(0.975) * se), 1e-9);
  EXPECT_NEAR(e.elo_high, EloFromScore(0.7 + NormalQuantile(0.975) * se), 1e-9);
  EXPECT_NEAR(e.elo_error, 66.01, 0.01);
  EXPECT_NEAR(e.los, NormalCdf(0.2 / se), 1e-12);
  // Normalized Elo: t-value per game times 800 / ln 10.
  EXPECT_NEAR(e.nelo, 0.2 / 0.4 * 800 / std::log(10.0), 1e-9);
}

TEST(EloTest, EvenScoreHasZeroEloAndHalfLos) {
  const EloEstimate e = EstimateElo(GameCounts{30, 40, 30});
  EXPECT_NEAR(e.elo, 0, 1e-9);
  EXPECT_NEAR(e.los, 0.5, 1e-9);
  EXPECT_NEAR(e.elo_low, -e.elo_high, 1e-9);
}

TEST(EloTest, PerfectScoresGetAOneSidedBound) {
  // 10 wins of 10: the score is at least 0.025^(1/10) with 97.5 %.
  EloEstimate e = EstimateElo(GameCounts{10, 0, 0});
  EXPECT_EQ(e.perfect, 1);
  EXPECT_TRUE(e.single_outcome);
  EXPECT_NEAR(e.elo_low, EloFromScore(std::pow(0.025, 0.1)), 1e-9);
  EXPECT_NEAR(e.elo_low, 140.2, 0.1);
  EXPECT_NEAR(e.elo_high, EloFromScore(1), 1e-9);
  EXPECT_NEAR(e.los, 1 - std::pow(0.5, 11), 1e-12);
  // 50 pairs all lost: the bound comes from the 50 pairs.
  PairCounts lost{};
  lost[0] = 50;
  e = EstimateElo(lost);
  EXPECT_EQ(e.perfect, -1);
  EXPECT_NEAR(e.elo_high, EloFromScore(1 - std::pow(0.025, 1.0 / 50)), 1e-9);
  EXPECT_NEAR(e.elo_low, EloFromScore(0), 1e-9);
  // One draw is enough to use the ordinary estimate.
  EXPECT_EQ(EstimateElo(GameCounts{10, 1, 0}).perfect, 0);
}

TEST(EloTest, OneOutcomeEverywhereGetsAnExactBound) {
  // 50 pairs, each won once and lost once: the score is 1/2 with no
  // variance in the data. The outcome's probability is at least
  // b = 0.025^(1/50) with 97.5 %, so the score lies in [b/2, b/2 + 1 - b],
  // not in the +/-0 a zero variance would give.
  PairCounts even{};
  even[2] = 50;
  const double b = std::pow(0.025, 1.0 / 50);
  EloEstimate e = EstimateElo(even);
  EXPECT_TRUE(e.single_outcome);
  EXPECT_EQ(e.perfect, 0);
  EXPECT_NEAR(e.score, 0.5, 1e-12);
  EXPECT_NEAR(e.elo, 0, 1e-9);
  EXPECT_NEAR(e.elo_low, EloFromScore(b / 2), 1e-9);
  EXPECT_NEAR(e.elo_high, EloFromScore(b / 2 + 1 - b), 1e-9);
  EXPECT_NEAR(e.elo_high, 24.75, 0.01);
  EXPECT_NEAR(e.elo_low, -e.elo_high, 1e-9);
  EXPECT_NEAR(e.los, 0.5, 1e-12);
  EXPECT_EQ(e.nelo, 0);
  // 10 pairs all won and drawn (3/4 of the points): above 1/2 when the
  // outcome's probability is above 2/3.
  PairCounts wd{};
  wd[3] = 10;
  e = EstimateElo(wd);
  EXPECT_TRUE(e.single_outcome);
  EXPECT_EQ(e.perfect, 0);
  EXPECT_NEAR(e.score, 0.75, 1e-12);
  const double b10 = std::pow(0.025, 0.1);
  EXPECT_NEAR(e.elo_low, EloFromScore(0.75 * b10), 1e-9);
  EXPECT_NEAR(e.elo_high, EloFromScore(0.75 * b10 + 1 - b10), 1e-9);
  EXPECT_NEAR(e.los, 1 - std::pow(2.0 / 3, 11), 1e-12);
  // 20 games all drawn.
  e = EstimateElo(GameCounts{0, 20, 0});
  EXPECT_TRUE(e.single_outcome);
  EXPECT_NEAR(
      e.elo_high,
      EloFromScore(std::pow(0.025, 0.05) / 2 + 1 - std::pow(0.025, 0.05)),
      1e-9);
  // Two outcomes are enough for the ordinary estimate.
  PairCounts two{};
  two[2] = 49;
  two[3] = 1;
  EXPECT_FALSE(EstimateElo(two).single_outcome);
}

TEST(EloTest, MatchSummaryGivesTheExactBoundOfOneOutcome) {
  MatchReport report;
  report.players = {"net", "ab"};
  PairingStats p;
  p.a = 0;
  p.b = 1;
  p.counts = GameCounts{50, 0, 50};
  p.pairs[2] = 50;
  p.games = 100;
  p.first_mover_points2 = 200;
  report.pairings.push_back(p);
  report.games_scheduled = 100;
  EXPECT_NE(report.Summary().find(
                "  Elo +0.0 (95 %: -24.8 .. +24.8): every one of the 50 pairs "
                "scored 1 (exact bound), LOS 50.00 %\n"),
            std::string::npos)
      << report.Summary();
  // One drawn game, counted as games.
  report.pentanomial = false;
  report.pairings[0].counts = GameCounts{0, 1, 0};
  report.pairings[0].pairs = {};
  report.pairings[0].games = 1;
  report.pairings[0].first_mover_points2 = 1;
  report.games_scheduled = 1;
  EXPECT_NE(report.Summary().find("  Elo +0.0 (95 %: -759.1 .. +759.1): the "
                                  "one game scored 0.5 (exact bound)"),
            std::string::npos)
      << report.Summary();
}

TEST(EloTest, PairIndexCountsHalfPoints) {
  EXPECT_EQ(PairIndex(0, 0), 0);      // LL
  EXPECT_EQ(PairIndex(0.5, 0), 1);    // DL
  EXPECT_EQ(PairIndex(0, 0.5), 1);    // LD
  EXPECT_EQ(PairIndex(1, 0), 2);      // WL
  EXPECT_EQ(PairIndex(0.5, 0.5), 2);  // DD
  EXPECT_EQ(PairIndex(0, 1), 2);      // LW
  EXPECT_EQ(PairIndex(1, 0.5), 3);    // WD
  EXPECT_EQ(PairIndex(0.5, 1), 3);    // DW
  EXPECT_EQ(PairIndex(1, 1), 4);      // WW
}

TEST(EloTest, PentanomialEstimate) {
  // 50 pairs: LL 3, LD 10, DD+WL 20, WD 12, WW 5. Mean score per game
  // (0 * 3 + 0.25 * 10 + 0.5 * 20 + 0.75 * 12 + 5) / 50 = 0.53; the
  // interval uses the variance of the pair means: 0.0666.
  const PairCounts pairs = {3, 10, 20, 12, 5};
  const EloEstimate e = EstimateElo(pairs);
  EXPECT_EQ(e.games, 100);
  EXPECT_NEAR(e.score, 0.53, 1e-12);
  EXPECT_NEAR(e.elo, EloFromScore(0.53), 1e-9);
  const double se = std::sqrt(0.0666 / 50);
  EXPECT_NEAR(e.elo_low, EloFromScore(0.53 - NormalQuantile(0.975) * se), 1e-9);
  EXPECT_NEAR(e.elo_high, EloFromScore(0.53 + NormalQuantile(0.975) * se),
              1e-9);
  EXPECT_NEAR(e.elo, 20.87, 0.01);  // fishtest's get_elo: 20.871 +/- 50.236
  EXPECT_NEAR(e.elo_error, 50.24, 0.01);
  EXPECT_NEAR(e.nelo, 0.03 / std::sqrt(2 * 0.0666) * 800 / std::log(10.0),
              1e-9);
}

TEST(SprtTest, BoundsFromAlphaAndBeta) {
  SprtParams p;
  p.alpha = 0.05;
  p.beta = 0.05;
  EXPECT_NEAR(p.LowerBound(), -2.944439, 1e-6);
  EXPECT_NEAR(p.UpperBound(), 2.944439, 1e-6);
  p.alpha = 0.05;
  p.beta = 0.1;
  EXPECT_NEAR(p.LowerBound(), std::log(0.1 / 0.95), 1e-12);
  EXPECT_NEAR(p.UpperBound(), std::log(0.9 / 0.05), 1e-12);
}

// Pentanomial counts in LLRcalc's order: LL, LD, WL+DD, WD, WW.
TEST(SprtTest, NormalizedPentanomialMatchesFishtest) {
  const double a[] = {365, 16618, 36029 + 200, 16974, 390};
  EXPECT_NEAR(LlrNormalized(0, 2, a), 2.25, 0.01);
  EXPECT_NEAR(LlrNormalized(0, 2, a), 2.2504, 1e-3);
  const double b[] = {127, 4883, 10311 + 401, 5150, 104};
  EXPECT_NEAR(LlrNormalized(-1.75, 0.25, b), 3.01, 0.01);
}

TEST(SprtTest, LogisticPentanomialMatchesFishtest) {
  const double a[] = {223, 9863, 20279 + 1000, 10037, 246};
  EXPECT_NEAR(LlrLogistic(0.5, 2.5, a), -3.07, 0.01);
  const double b[] = {871, 26175, 55003 + 980, 26678, 821};
  EXPECT_NEAR(LlrLogistic(0, 2, b), -4.98, 0.01);
}

// Trinomial counts in LLRcalc's order: losses, draws, wins.
TEST(SprtTest, TrinomialMatchesFishtest) {
  const double a[] = {36027, 68692, 36433};
  EXPECT_NEAR(LlrNormalized(0, 2, a), 0.92, 0.01);
  const double b[] = {10650, 20431, 10871};
  EXPECT_NEAR(LlrNormalized(-1.75, 0.25, b), 2.30, 0.01);
  const double c[] = {21184, 40708, 21404};
  EXPECT_NEAR(LlrLogistic(0.5, 2.5, c), -1.57, 0.01);
  const double d[] = {57030, 106593, 57433};
  EXPECT_NEAR(LlrLogistic(0, 2, d), -2.59, 0.01);
}

TEST(SprtTest, VerdictsFromCounts) {
  SprtParams p;  // elo0 = 0, elo1 = 5, alpha = beta = 0.05, normalized
  // Nothing played: LLR 0, go on.
  SprtStatus s = EvaluateSprt(p, PairCounts{});
  EXPECT_EQ(s.verdict, SprtVerdict::kContinue);
  EXPECT_EQ(s.llr, 0);
  // The generalized LLR grows slowly when the true Elo is far beyond both
  // bounds: 102 crushing pairs are not yet enough against [0, 5] (the port
  // of LLRcalc.py gives 1.7480) ...
  const PairCounts crushing = {0, 2, 10, 30, 60};
  s = EvaluateSprt(p, crushing);
  EXPECT_NEAR(s.llr, 1.7480, 1e-3);
  EXPECT_EQ(s.verdict, SprtVerdict::kContinue);
  // ... but they decide a test of [0, 100] (27.25), and the mirror image
  // fails it (-42.19).
  p.elo1 = 100;
  s = EvaluateSprt(p, crushing);
  EXPECT_NEAR(s.llr, 27.25, 0.01);
  EXPECT_EQ(s.verdict, SprtVerdict::kAcceptH1);
  s = EvaluateSprt(p, PairCounts{60, 30, 10, 2, 0});
  EXPECT_NEAR(s.llr, -42.19, 0.01);
  EXPECT_EQ(s.verdict, SprtVerdict::kAcceptH0);
  // Game counts use the trinomial form (losses, draws, wins).
  p.elo1 = 5;
  const GameCounts games{120, 60, 20};
  const double results[] = {20, 60, 120};
  EXPECT_NEAR(EvaluateSprt(p, games).llr, LlrNormalized(0, 5, results), 1e-12);
  EXPECT_NEAR(EvaluateSprt(p, games).llr, 1.7001, 1e-3);
}

TEST(SprtTest, ParsesParameters) {
  absl::StatusOr<SprtParams> p =
      ParseSprtParams("elo0=0,elo1=5,alpha=0.05,beta=0.1");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->elo0, 0);
  EXPECT_EQ(p->elo1, 5);
  EXPECT_EQ(p->alpha, 0.05);
  EXPECT_EQ(p->beta, 0.1);
  EXPECT_EQ(p->model, EloModel::kNormalized);
  p = ParseSprtParams("elo0=-1.5, elo1=0.5, model=logistic");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->elo0, -1.5);
  EXPECT_EQ(p->model, EloModel::kLogistic);
  EXPECT_FALSE(ParseSprtParams("elo0=5,elo1=0").ok());
  EXPECT_FALSE(ParseSprtParams("elo0=0,elo1=5,alpha=2").ok());
  EXPECT_FALSE(ParseSprtParams("elo2=3").ok());
  EXPECT_FALSE(ParseSprtParams("elo0=x").ok());
  EXPECT_FALSE(ParseSprtParams("model=bayes").ok());
}

}  // namespace
}  // namespace volkhv::selfplay
