#include "engine/search/gumbel_select.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace volkhv::search {
namespace {

constexpr double kNoLogit = -std::numeric_limits<double>::infinity();

double Logit(float prior) { return prior > 0 ? std::log(prior) : kNoLogit; }

// The children's priors, Q-values (in flight as virtual losses) and started
// visits, from the point of view of `node`'s side to move.
struct ChildStats {
  std::vector<double> priors, logits, q;
  std::vector<uint32_t> visits;
};

ChildStats Children(const Node& node, double draw_score, double vl) {
  ChildStats s;
  const int k = node.num_edges;
  s.priors.resize(k);
  s.logits.resize(k);
  s.q.assign(k, 0);
  s.visits.assign(k, 0);
  const int side = node.side_to_move;
  ChildWalk walk(node);
  for (int i = 0; i < k; ++i) {
    const Edge& edge = node.edges[i];
    s.priors[i] = edge.prior;
    s.logits[i] = Logit(edge.prior);
    const Node* child = walk.At(i);
    if (child == nullptr) continue;
    const uint32_t started = child->n + child->in_flight;
    if (started == 0) continue;
    s.visits[i] = started;
    s.q[i] = (child->UtilityFor(side, draw_score) * child->n -
              vl * child->in_flight) /
             started;
  }
  return s;
}

}  // namespace

double NetworkValue(const Node& node, double draw_score) {
  const int side = node.side_to_move;
  double total = node.UtilityFor(side, draw_score) * node.n;
  for (const Node* child = node.first_child; child != nullptr;
       child = child->next_sibling) {
    total -= child->UtilityFor(side, draw_score) * child->n;
  }
  const double bound = 1 + std::abs(draw_score);
  return std::clamp(total, -bound, bound);
}

int SelectGumbelInterior(const Node& node, double draw_score,
                         const GumbelParams& params) {
  const ChildStats s = Children(node, draw_score, params.virtual_loss);
  const std::vector<double> completed = gumbel::CompletedQ(
      NetworkValue(node, draw_score), s.priors, s.q, s.visits);
  const std::vector<double> policy =
      gumbel::ImprovedPolicy(s.logits, completed, s.visits, params.sigma);
  return gumbel::SelectInterior(policy, s.visits);
}

void GumbelRoot::Start(const Node& root, int budget, const GumbelParams& params,
                       double draw_score, Rng* rng) {
  started_ = true;
  params_ = params;
  draw_score_ = draw_score;
  const int k = root.num_edges;
  logits_.resize(k);
  gumbel_.assign(k, 0);
  base_n_.assign(k, 0);
  const std::vector<const Node*> children = ChildrenByEdge(root);
  for (int i = 0; i < k; ++i) {
    logits_[i] = Logit(root.edges[i].prior);
    if (params.noise) gumbel_[i] = gumbel::GumbelSample(rng->Uniform());
    if (children[i] != nullptr) base_n_[i] = children[i]->n;
  }
  considered_ = gumbel::GumbelTopK(logits_, gumbel_, params.considered);
  // Moves with prior 0 (known losses, among others) only when nothing else
  // is left.
  const auto possible =
      std::stable_partition(considered_.begin(), considered_.end(), [&](int i) {
        return logits_[i] != kNoLogit && !LostEdge(root, children[i]);
      });
  if (possible != considered_.begin()) {
    considered_.erase(possible, considered_.end());
  }
  sequence_ = gumbel::ConsideredVisitSequence(
      static_cast<int>(considered_.size()), std::max(budget, 1));
}

uint32_t GumbelRoot::RunVisits(const Node* child, int edge) const {
  if (child == nullptr) return 0;
  const uint32_t now = child->n + child->in_flight;
  return now > base_n_[edge] ? now - base_n_[edge] : 0;
}

bool GumbelRoot::LostEdge(const Node& root, const Node* child) {
  return child != nullptr &&
         child->ProvenFor(root.side_to_move) == Proven::kLoss;
}

int GumbelRoot::ProvenWinEdge(const Node& root) {
  for (const Node* child = root.first_child; child != nullptr;
       child = child->next_sibling) {
    if (child->ProvenFor(root.side_to_move) == Proven::kWin) {
      return child->index;
    }
  }
  return -1;
}

std::vector<double> GumbelRoot::CompletedQ(const Node& root) const {
  const ChildStats s = Children(root, draw_score_, params_.virtual_loss);
  return gumbel::CompletedQ(NetworkValue(root, draw_score_), s.priors, s.q,
                            s.visits);
}

std::vector<int> GumbelRoot::Candidates(
    const Node& root, const std::vector<const Node*>& children) const {
  std::vector<int> alive;
  for (int i : considered_) {
    if (!LostEdge(root, children[i])) alive.push_back(i);
  }
  return alive.empty() ? considered_ : alive;
}

int GumbelRoot::Next(const Node& root) {
  if (const int win = ProvenWinEdge(root); win >= 0) return win;
  const std::vector<double> q = CompletedQ(root);
  const std::vector<const Node*> children = ChildrenByEdge(root);
  uint32_t max_n = 0, simulation = 0, most = 0;
  for (int i = 0; i < root.num_edges; ++i) {
    const Node* child = children[i];
    if (child != nullptr) max_n = std::max(max_n, child->n + child->in_flight);
    simulation += RunVisits(child, i);
  }
  const std::vector<int> candidates = Candidates(root, children);
  for (int i : candidates) {
    most = std::max(most, RunVisits(children[i], i));
  }
  auto score = [&](int i) {
    return gumbel_[i] + logits_[i] + gumbel::Sigma(q[i], max_n, params_.sigma);
  };
  // The schedule's count for this simulation; past its end, the survivors
  // (the most visited).
  const uint32_t target =
      simulation < sequence_.size() ? sequence_[simulation] : most;
  int best = -1;
  for (int pass = 0; pass < 2 && best < 0; ++pass) {
    double best_score = -std::numeric_limits<double>::infinity();
    for (int i : candidates) {
      const uint32_t n = RunVisits(children[i], i);
      // Second pass (in-flight visits made the counts skip the target):
      // any action not ahead of the schedule.
      if (pass == 0 ? n != target : n > target) continue;
      const double s = score(i);
      if (best < 0 || s > best_score) best = i, best_score = s;
    }
  }
  return best >= 0 ? best : candidates.front();
}

int GumbelRoot::Choice(const Node& root) const {
  if (const int win = ProvenWinEdge(root); win >= 0) return win;
  const std::vector<double> q = CompletedQ(root);
  const std::vector<const Node*> children = ChildrenByEdge(root);
  uint32_t max_n = 0, most = 0;
  for (const Node* child : children) {
    if (child != nullptr) max_n = std::max(max_n, child->n + child->in_flight);
  }
  const std::vector<int> candidates = Candidates(root, children);
  for (int i : candidates) {
    most = std::max(most, RunVisits(children[i], i));
  }
  int best = candidates.front();
  double best_score = -std::numeric_limits<double>::infinity();
  for (int i : candidates) {
    if (RunVisits(children[i], i) != most) continue;
    const double s =
        gumbel_[i] + logits_[i] + gumbel::Sigma(q[i], max_n, params_.sigma);
    if (s > best_score) best = i, best_score = s;
  }
  return best;
}

std::vector<double> GumbelRoot::ImprovedPolicy(const Node& root) const {
  const ChildStats s = Children(root, draw_score_, params_.virtual_loss);
  const std::vector<double> completed = gumbel::CompletedQ(
      NetworkValue(root, draw_score_), s.priors, s.q, s.visits);
  return gumbel::ImprovedPolicy(s.logits, completed, s.visits, params_.sigma);
}

}  // namespace volkhv::search
