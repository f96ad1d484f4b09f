#include "selfplay/elo.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::selfplay {
namespace {

// Normalized Elo per unit of t-value: 800 / ln(10) (LLRcalc.py).
const double kNeloDividedByNt = 800.0 / std::log(10.0);

// A discrete distribution: values a_i with probabilities p_i.
struct Pdf {
  std::vector<double> value;
  std::vector<double> prob;
};

// Zero counts become 0.001 (LLRcalc.regularize), then frequencies over the
// values i / (n - 1) (LLRcalc.results_to_pdf). Returns the total count.
double ResultsToPdf(std::span<const double> results, Pdf* pdf) {
  const int n = static_cast<int>(results.size());
  double total = 0;
  std::vector<double> r(results.begin(), results.end());
  for (double& x : r) {
    if (x == 0) x = 1e-3;
    total += x;
  }
  pdf->value.resize(n);
  pdf->prob.resize(n);
  for (int i = 0; i < n; ++i) {
    pdf->value[i] = static_cast<double>(i) / (n - 1);
    pdf->prob[i] = r[i] / total;
  }
  return total;
}

void MeanVariance(const std::vector<double>& value,
                  const std::vector<double>& prob, double* mean,
                  double* variance) {
  double m = 0;
  for (size_t i = 0; i < value.size(); ++i) m += prob[i] * value[i];
  double v = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    v += prob[i] * (value[i] - m) * (value[i] - m);
  }
  *mean = m;
  *variance = v;
}

// Solves sum_i p_i a_i / (1 + x a_i) = 0 for x in (-1/max a, -1/min a)
// (LLRcalc.secular); the left side falls strictly with x there, so bisection
// converges to the one root. Without a sign change among the a_i (a
// hypothesis no distribution on these outcomes can meet, e.g. bounds of
// hundreds of normalized Elo) there is no root: fishtest asserts, here the
// distribution is left as observed (x = 0).
double Secular(const std::vector<double>& a, const std::vector<double>& p) {
  const double v = *std::min_element(a.begin(), a.end());
  const double w = *std::max_element(a.begin(), a.end());
  if (!(v < 0 && w > 0)) return 0;
  const double epsilon = 1e-9;
  double lo = -1 / w + epsilon;
  double hi = -1 / v - epsilon;
  auto f = [&](double x) {
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i) sum += p[i] * a[i] / (1 + x * a[i]);
    return sum;
  };
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = (lo + hi) / 2;
    if (f(mid) > 0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

// The maximum-likelihood distribution on the same values with expectation s
// (LLRcalc.MLE_expected).
std::vector<double> MleExpected(const Pdf& hat, double s) {
  std::vector<double> shifted(hat.value.size());
  for (size_t i = 0; i < shifted.size(); ++i) shifted[i] = hat.value[i] - s;
  const double x = Secular(shifted, hat.prob);
  std::vector<double> p(hat.prob.size());
  for (size_t i = 0; i < p.size(); ++i) {
    p[i] = hat.prob[i] / (1 + x * shifted[i]);
  }
  return p;
}

// The maximum-likelihood distribution on the same values with t-value
// (mu - ref) / sigma = s (LLRcalc.MLE_t_value).
std::vector<double> MleTValue(const Pdf& hat, double ref, double s) {
  const size_t n = hat.value.size();
  std::vector<double> p(n, 1.0 / n);
  std::vector<double> phi(n);
  for (int iteration = 0; iteration < 10; ++iteration) {
    const std::vector<double> previous = p;
    double mu, var;
    MeanVariance(hat.value, p, &mu, &var);
    const double sigma = std::sqrt(var);
    for (size_t i = 0; i < n; ++i) {
      const double z = (mu - hat.value[i]) / sigma;
      phi[i] = hat.value[i] - ref - s * sigma * (1 + z * z) / 2;
    }
    const double x = Secular(phi, hat.prob);
    double change = 0;
    for (size_t i = 0; i < n; ++i) {
      p[i] = hat.prob[i] / (1 + x * phi[i]);
      change = std::max(change, std::abs(p[i] - previous[i]));
    }
    if (change < 1e-9) break;
  }
  return p;
}

// N * sum_i p_i (log p1_i - log p0_i) (LLRcalc.LLR times the count).
double Llr(const Pdf& hat, double total, const std::vector<double>& p0,
           const std::vector<double>& p1) {
  double sum = 0;
  for (size_t i = 0; i < hat.prob.size(); ++i) {
    sum += hat.prob[i] * (std::log(p1[i]) - std::log(p0[i]));
  }
  return total * sum;
}

// fishtest's stat_util.get_elo on counts of 2k+1 outcomes (k games each).
EloEstimate EstimateFromResults(std::vector<double> results, int games) {
  EloEstimate e;
  e.games = games;
  double samples = 0;
  for (double x : results) samples += x;
  const int outcomes = static_cast<int>(results.size());
  for (int i = 0; i < outcomes && samples > 0; ++i) {
    if (results[i] != samples) continue;
    // Every sample the same outcome v (a score in [0, 1]): the data has no
    // variance to estimate. With 97.5 % the outcome's probability q is at
    // least b = 0.025^(1/n) (the exact one-sided bound of n in n), so the
    // mean score lies in [v b, v b + (1 - b)]: for v = 1 the perfect
    // record's bound [b, 1].
    const double v = static_cast<double>(i) / (outcomes - 1);
    const double bound = std::pow(0.025, 1 / samples);
    e.single_outcome = true;
    e.perfect = i == outcomes - 1 ? 1 : i == 0 ? -1 : 0;
    e.score = v;
    e.elo = EloFromScore(v);
    e.elo_low = EloFromScore(v * bound);
    e.elo_high = EloFromScore(v * bound + 1 - bound);
    e.elo_error = (e.elo_high - e.elo_low) / 2;
    // The score is above 1/2 when q > 1/(2v) (below it when q > 1/(2 - 2v));
    // P(q > t) = 1 - t^(n+1) under the Beta(n + 1, 1) posterior of a
    // uniform prior.
    if (v > 0.5) {
      e.los = 1 - std::pow(0.5 / v, samples + 1);
    } else if (v < 0.5) {
      e.los = std::pow(0.5 / (1 - v), samples + 1);
    }
    return e;
  }
  for (double& x : results) {
    if (x == 0) x = 1e-3;
  }
  const int l = static_cast<int>(results.size());
  double n = 0;
  for (double x : results) n += x;
  const double g = n * (l - 1) / 2.0;  // games
  double mu = 0;
  for (int i = 0; i < l; ++i) mu += results[i] * (i / 2.0);
  mu /= g;
  const double mu_ = (l - 1) / 2.0 * mu;
  double var = 0;
  for (int i = 0; i < l; ++i) {
    var += results[i] * (i / 2.0 - mu_) * (i / 2.0 - mu_);
  }
  var /= g;  // per game
  const double se = std::sqrt(var) / std::sqrt(g);
  const double z = NormalQuantile(0.975);
  e.score = mu;
  e.elo = EloFromScore(mu);
  e.elo_low = EloFromScore(mu - z * se);
  e.elo_high = EloFromScore(mu + z * se);
  e.elo_error = (e.elo_high - e.elo_low) / 2;
  e.los = se > 0 ? NormalCdf((mu - 0.5) / se) : 0.5;
  // Normalized Elo: the score's t-value per game, times 800 / ln(10). As in
  // fishtest's LLR_normalized_alt, a pair's per-game deviation is
  // sqrt(2 * variance of the pair's mean score).
  double sigma_game = std::sqrt(var);
  if (l == 5) {
    double pair_mean = 0;
    for (int i = 0; i < l; ++i) pair_mean += results[i] / n * (i / 4.0);
    double pair_var = 0;
    for (int i = 0; i < l; ++i) {
      pair_var +=
          results[i] / n * (i / 4.0 - pair_mean) * (i / 4.0 - pair_mean);
    }
    sigma_game = std::sqrt(2 * pair_var);
  }
  if (sigma_game > 0) {
    e.nelo = (mu - 0.5) / sigma_game * kNeloDividedByNt;
    e.nelo_error = z * se / sigma_game * kNeloDividedByNt;
  }
  return e;
}

}  // namespace

double GameCounts::Score() const {
  const int n = games();
  return n == 0 ? 0.5 : (wins + 0.5 * draws) / n;
}

int PairIndex(double first_score, double second_score) {
  return static_cast<int>(std::lround(2 * (first_score + second_score)));
}

double EloFromScore(double score) {
  score = std::clamp(score, 1e-3, 1 - 1e-3);
  return -400 * std::log10(1 / score - 1);
}

double ScoreFromElo(double elo) { return 1 / (1 + std::pow(10, -elo / 400)); }

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double NormalQuantile(double p) {
  // Acklam's rational approximation, refined by one Halley step on erfc.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  if (p <= 0) return -HUGE_VAL;
  if (p >= 1) return HUGE_VAL;
  const double low = 0.02425;
  double x;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - low) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
        q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = NormalCdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

EloEstimate EstimateElo(const GameCounts& counts) {
  return EstimateFromResults(
      {static_cast<double>(counts.losses), static_cast<double>(counts.draws),
       static_cast<double>(counts.wins)},
      counts.games());
}

EloEstimate EstimateElo(const PairCounts& pairs) {
  std::vector<double> results(pairs.begin(), pairs.end());
  int n = 0;
  for (int x : pairs) n += x;
  return EstimateFromResults(std::move(results), 2 * n);
}

double LlrNormalized(double nelo0, double nelo1,
                     std::span<const double> results) {
  double t0 = nelo0 / kNeloDividedByNt;
  double t1 = nelo1 / kNeloDividedByNt;
  if (results.size() == 5) {
    t0 *= std::sqrt(2.0);
    t1 *= std::sqrt(2.0);
  }
  Pdf hat;
  const double total = ResultsToPdf(results, &hat);
  return Llr(hat, total, MleTValue(hat, 0.5, t0), MleTValue(hat, 0.5, t1));
}

double LlrLogistic(double elo0, double elo1, std::span<const double> results) {
  Pdf hat;
  const double total = ResultsToPdf(results, &hat);
  return Llr(hat, total, MleExpected(hat, ScoreFromElo(elo0)),
             MleExpected(hat, ScoreFromElo(elo1)));
}

double SprtParams::LowerBound() const { return std::log(beta / (1 - alpha)); }

double SprtParams::UpperBound() const { return std::log((1 - beta) / alpha); }

std::string SprtParams::Describe() const {
  return absl::StrFormat(
      "elo0=%g,elo1=%g,alpha=%g,beta=%g,model=%s", elo0, elo1, alpha, beta,
      model == EloModel::kNormalized ? "normalized" : "logistic");
}

absl::StatusOr<SprtParams> ParseSprtParams(std::string_view text) {
  SprtParams params;
  for (std::string_view item : Split(text, ",", true)) {
    item = Trim(item);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(
          Cat("SPRT: expected key=value, got '", item, "'"));
    }
    const std::string_view key = Trim(item.substr(0, eq));
    const std::string value(Trim(item.substr(eq + 1)));
    if (key == "model") {
      if (value == "normalized") {
        params.model = EloModel::kNormalized;
      } else if (value == "logistic") {
        params.model = EloModel::kLogistic;
      } else {
        return absl::InvalidArgumentError(Cat(
            "SPRT: model must be normalized or logistic, got '", value, "'"));
      }
      continue;
    }
    const std::optional<double> parsed = ToDouble(value);
    if (!parsed) {
      return absl::InvalidArgumentError(
          Cat("SPRT: ", key, " must be a number, got '", value, "'"));
    }
    const double x = *parsed;
    if (key == "elo0") {
      params.elo0 = x;
    } else if (key == "elo1") {
      params.elo1 = x;
    } else if (key == "alpha") {
      params.alpha = x;
    } else if (key == "beta") {
      params.beta = x;
    } else {
      return absl::InvalidArgumentError(
          Cat("SPRT: unknown key '", key,
              "' (known: elo0, elo1, alpha, beta, model)"));
    }
  }
  if (!(params.elo0 < params.elo1)) {
    return absl::InvalidArgumentError("SPRT: elo0 must be less than elo1");
  }
  for (double p : {params.alpha, params.beta}) {
    if (!(p > 0 && p < 0.5)) {
      return absl::InvalidArgumentError(
          "SPRT: alpha and beta must be in (0, 0.5)");
    }
  }
  return params;
}

std::string_view SprtVerdictName(SprtVerdict verdict) {
  switch (verdict) {
    case SprtVerdict::kAcceptH0:
      return "H0 accepted (fail)";
    case SprtVerdict::kAcceptH1:
      return "H1 accepted (pass)";
    default:
      return "continue";
  }
}

namespace {

SprtStatus Decide(const SprtParams& params, std::span<const double> results) {
  SprtStatus status;
  status.lower = params.LowerBound();
  status.upper = params.UpperBound();
  double total = 0;
  for (double x : results) total += x;
  if (total == 0) return status;
  status.llr = params.model == EloModel::kNormalized
                   ? LlrNormalized(params.elo0, params.elo1, results)
                   : LlrLogistic(params.elo0, params.elo1, results);
  if (!std::isfinite(status.llr)) status.llr = 0;
  if (status.llr >= status.upper) {
    status.verdict = SprtVerdict::kAcceptH1;
  } else if (status.llr <= status.lower) {
    status.verdict = SprtVerdict::kAcceptH0;
  }
  return status;
}

}  // namespace

SprtStatus EvaluateSprt(const SprtParams& params, const GameCounts& counts) {
  const double results[3] = {static_cast<double>(counts.losses),
                             static_cast<double>(counts.draws),
                             static_cast<double>(counts.wins)};
  return Decide(params, results);
}

SprtStatus EvaluateSprt(const SprtParams& params, const PairCounts& pairs) {
  double results[5];
  for (int i = 0; i < 5; ++i) results[i] = pairs[i];
  return Decide(params, results);
}

}  // namespace volkhv::selfplay
