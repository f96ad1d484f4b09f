#include "engine/search/gumbel.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>

namespace volkhv::search::gumbel {

double Sigma(double q, uint32_t max_visits, const SigmaParams& params) {
  return (params.c_visit + max_visits) * params.c_scale * q;
}

double GumbelSample(double u) {
  if (u <= 0) u = std::numeric_limits<double>::min();
  return -std::log(-std::log(u));
}

std::vector<int> GumbelTopK(std::span<const double> logits,
                            std::span<const double> gumbel, int m) {
  std::vector<int> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return gumbel[a] + logits[a] > gumbel[b] + logits[b];
  });
  if (m >= 0 && static_cast<size_t>(m) < order.size()) order.resize(m);
  return order;
}

std::vector<uint32_t> ConsideredVisitSequence(int num_considered, int budget) {
  std::vector<uint32_t> sequence;
  if (budget <= 0) return sequence;
  sequence.reserve(budget);
  if (num_considered <= 1) {
    for (int s = 0; s < budget; ++s) sequence.push_back(s);
    return sequence;
  }
  const int phases = static_cast<int>(
      std::ceil(std::log2(static_cast<double>(num_considered))));
  std::vector<uint32_t> visits(num_considered, 0);
  int considered = num_considered;
  while (static_cast<int>(sequence.size()) < budget) {
    const int extra = std::max(1, budget / (phases * considered));
    for (int round = 0; round < extra; ++round) {
      for (int a = 0; a < considered; ++a) sequence.push_back(visits[a]++);
    }
    considered = std::max(2, considered / 2);
  }
  sequence.resize(budget);
  return sequence;
}

double MixedValue(double value, std::span<const double> priors,
                  std::span<const double> q, std::span<const uint32_t> visits) {
  double total_visits = 0;
  double visited_prior = 0;
  double weighted_q = 0;
  for (size_t a = 0; a < visits.size(); ++a) {
    if (visits[a] == 0) continue;
    total_visits += visits[a];
    visited_prior += priors[a];
    weighted_q += priors[a] * q[a];
  }
  if (total_visits == 0) return value;
  // All visited priors 0 (a prior can be 0 after noise or pruning): the
  // plain mean of their Q-values instead of a prior-weighted one.
  double visited_mean;
  if (visited_prior > 0) {
    visited_mean = weighted_q / visited_prior;
  } else {
    double sum = 0;
    int count = 0;
    for (size_t a = 0; a < visits.size(); ++a) {
      if (visits[a] > 0) sum += q[a], ++count;
    }
    visited_mean = sum / count;
  }
  return (value + total_visits * visited_mean) / (1 + total_visits);
}

std::vector<double> CompletedQ(double value, std::span<const double> priors,
                               std::span<const double> q,
                               std::span<const uint32_t> visits) {
  const double mixed = MixedValue(value, priors, q, visits);
  std::vector<double> completed(q.size());
  for (size_t a = 0; a < q.size(); ++a) {
    completed[a] = visits[a] > 0 ? q[a] : mixed;
  }
  if (completed.empty()) return completed;
  const auto [lo, hi] = std::minmax_element(completed.begin(), completed.end());
  const double min = *lo;
  const double range = *hi - *lo;
  for (double& c : completed) c = range > 1e-9 ? (c - min) / range : 0;
  return completed;
}

std::vector<double> ImprovedPolicy(std::span<const double> logits,
                                   std::span<const double> completed_q,
                                   std::span<const uint32_t> visits,
                                   const SigmaParams& params) {
  const uint32_t max_visits =
      visits.empty() ? 0 : *std::max_element(visits.begin(), visits.end());
  std::vector<double> policy(logits.size());
  double max_score = -std::numeric_limits<double>::infinity();
  for (size_t a = 0; a < logits.size(); ++a) {
    policy[a] = logits[a] + Sigma(completed_q[a], max_visits, params);
    max_score = std::max(max_score, policy[a]);
  }
  double sum = 0;
  for (double& p : policy) {
    p = std::isinf(max_score) ? 1 : std::exp(p - max_score);
    sum += p;
  }
  for (double& p : policy) p /= sum;
  return policy;
}

int SelectInterior(std::span<const double> improved_policy,
                   std::span<const uint32_t> visits) {
  double total = 0;
  for (uint32_t n : visits) total += n;
  int best = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  for (size_t a = 0; a < improved_policy.size(); ++a) {
    const double score = improved_policy[a] - visits[a] / (1 + total);
    if (score > best_score) best_score = score, best = static_cast<int>(a);
  }
  return best;
}

}  // namespace volkhv::search::gumbel
