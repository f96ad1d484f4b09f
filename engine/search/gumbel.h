// The arithmetic of Gumbel AlphaZero's root search (Danihelka, Guez,
// Schrittwieser, Silver, "Policy improvement by planning with Gumbel", ICLR
// 2022), free of any tree: Gumbel-top-k sampling, the Sequential Halving visit
// schedule, completed Q-values, the monotone transform sigma, the improved
// policy and the deterministic non-root selection. The search
// (engine/search/search.h) applies them to its nodes.
//
// Conventions: actions are indices 0..k-1 into one node's legal moves;
// `logits` are log-priors (any constant offset cancels); Q-values are from the
// point of view of the node's side to move, in any range (CompletedQ rescales
// them to [0, 1] as DeepMind's mctx does). All functions are pure and
// thread-safe.
#ifndef VOLKHV_ENGINE_SEARCH_GUMBEL_H_
#define VOLKHV_ENGINE_SEARCH_GUMBEL_H_

#include <cstdint>
#include <span>
#include <vector>

namespace volkhv::search::gumbel {

// sigma(q) = (c_visit + max_visits) * c_scale * q: how much a Q-value in
// [0, 1] adds to a logit once the most visited action has `max_visits`.
struct SigmaParams {
  double c_visit = 50;
  double c_scale = 0.1;
};
double Sigma(double q, uint32_t max_visits, const SigmaParams& params);

// A standard Gumbel sample, -log(-log(u)), for u uniform in [0, 1); u = 0
// is treated as the smallest positive double.
double GumbelSample(double u);

// The `m` actions with the largest gumbel[a] + logits[a] (all of them if m
// >= k), best first; ties go to the lower index. Sampling m actions without
// replacement from softmax(logits) is the same as taking the top m of
// logits plus independent Gumbel noise.
std::vector<int> GumbelTopK(std::span<const double> logits,
                            std::span<const double> gumbel, int m);

// Sequential Halving over `num_considered` actions and `budget` simulations,
// as a sequence: entry s is the number of visits an action must have to be
// eligible for simulation s. Phases are ceil(log2(num_considered)); in each,
// every action still considered gets max(1, floor(budget / (phases *
// considered))) more visits, then the considered count halves (never below
// 2). The search sends simulation s to the eligible considered action with
// the best gumbel + logit + sigma(completed Q), so actions eliminated by a
// halving (the lower half by that score) are never eligible again. With one
// action considered the sequence is 0, 1, 2, ...
std::vector<uint32_t> ConsideredVisitSequence(int num_considered, int budget);

// The value v_mix that stands in for unvisited actions: the node's own
// network value `value` mixed with the prior-weighted mean Q of the visited
// actions, weighted by their total visits (paper, appendix D, eq. 33).
double MixedValue(double value, std::span<const double> priors,
                  std::span<const double> q, std::span<const uint32_t> visits);

// Q of each action, unvisited ones given MixedValue, then rescaled to [0, 1]
// by the minimum and maximum over all actions (all 0 when they are equal, as
// in mctx). `priors` need not be normalised.
std::vector<double> CompletedQ(double value, std::span<const double> priors,
                               std::span<const double> q,
                               std::span<const uint32_t> visits);

// softmax(logits + sigma(completed_q)), with sigma taken at the largest of
// `visits`: the policy training target of a root searched with Gumbel, and
// the interior selection's policy.
std::vector<double> ImprovedPolicy(std::span<const double> logits,
                                   std::span<const double> completed_q,
                                   std::span<const uint32_t> visits,
                                   const SigmaParams& params);

// Non-root selection: argmax of improved_policy[a] - visits[a] / (1 + sum of
// visits); ties go to the lower index. Deterministic.
int SelectInterior(std::span<const double> improved_policy,
                   std::span<const uint32_t> visits);

}  // namespace volkhv::search::gumbel

#endif  // VOLKHV_ENGINE_SEARCH_GUMBEL_H_
