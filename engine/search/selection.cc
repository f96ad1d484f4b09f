// Selection: the descent from the root to a leaf along PUCT (first-play
// urgency, forced playouts at the root, virtual loss, the minimax share of
// Q) or, with SearchParams::gumbel, Gumbel AlphaZero's rules
// (engine/search/gumbel_select.h).
#include <algorithm>
#include <cmath>

#include "engine/search/search.h"
#include "engine/search/search_internal.h"

namespace volkhv::search {
namespace {

// The selection score of a root child owed forced playouts: above any PUCT
// value.
constexpr double kForcedScore = 1e20;

}  // namespace

Search::Pick Search::PickLeaf(Worker* worker, Slot* slot) {
  slot->path.clear();
  slot->moves.clear();
  slot->known = false;
  slot->proven_now = false;
  slot->filtered = false;
  Node* node = tree_.root();
  for (;;) {
    if (node->n == 0 && node->in_flight > 0) {
      // Already waiting for its evaluation: keep the in-flight counts of
      // the path (they steer the next selections elsewhere) until the
      // minibatch is backed up.
      worker->collided.insert(worker->collided.end(), slot->path.begin(),
                              slot->path.end());
      return Pick::kCollision;
    }
    slot->path.push_back(node);
    ++node->in_flight;
    if (node->proven() != Proven::kNone) {
      slot->known = true;
      return Pick::kKnown;
    }
    if (node->n == 0) return ExtendLeaf(worker, slot, node);  // a new leaf
    const bool is_root = node == tree_.root();
    const Selected best = params_.gumbel ? SelectGumbel(node, is_root)
                                         : SelectPuct(node, is_root);
    Node* child = best.child;
    if (child == nullptr) {
      if (MemoryFull(sizeof(Node))) {
        ReleasePath(*slot);
        return Pick::kMemoryFull;
      }
      child = tree_.AddChild(node, best.edge);
    }
    slot->moves.push_back(node->edges[best.edge].move);
    node = child;
  }
}

Search::Selected Search::SelectPuct(Node* node, bool is_root) {
  const double vl = params_.virtual_loss;
  const double minimax_weight = params_.minimax_weight;
  const int side = node->side_to_move;
  const double draw_score = DrawScoreFor(side);
  const int64_t children_started =
      int64_t{node->n} - 1 + int64_t{node->in_flight} - 1;
  const double puct_mult = PuctMultiplier(params_, node->n, children_started);
  const bool mlh = moves_left_seen_ && params_.mlh_slope > 0;
  // Forced playouts: k * total child visits; a child is owed visits while
  // its started visits are below sqrt(this * prior).
  const double forced_base =
      is_root && params_.forced_playouts_k > 0
          ? params_.forced_playouts_k *
                static_cast<double>(std::max<int64_t>(children_started, 0))
          : 0;
  // One pass (each child is a likely cache miss): children with visits
  // are scored as they come; the unstarted ones all share the FPU value,
  // so the best of them is simply the first with the highest prior.
  double visited_policy = 0;
  Selected best_started = {-1, nullptr};
  double best_started_score = -1e300;
  Selected best_fresh = {-1, nullptr};
  float best_fresh_prior = -1;
  ChildWalk walk(*node);
  for (int i = 0; i < node->num_edges; ++i) {
    const Edge& edge = node->edges[i];
    Node* child = walk.At(i);
    if (child == nullptr || child->n + child->in_flight == 0) {
      if (edge.prior > best_fresh_prior) {
        best_fresh_prior = edge.prior;
        best_fresh = {i, child};
      }
      continue;
    }
    if (child->n > 0) visited_policy += edge.prior;
    const double started = double(child->n) + child->in_flight;
    const double utility = child->UtilityFor(side, draw_score);
    const double value = child->n > 0
                             ? (1 - minimax_weight) * utility +
                                   minimax_weight * child->MinimaxFor(side)
                             : utility;
    const double q = (value * child->n - vl * child->in_flight) / started;
    double score = q + puct_mult * edge.prior / (1 + started);
    if (mlh && child->n > 0) score += MovesLeftBonus(*node, *child, utility);
    // Only children with a completed visit are forced (forcing one whose
    // first visit is still in flight would only collide), and never a
    // proven one (its value is exact).
    if (forced_base > 0 && child->n > 0 && child->proven() == Proven::kNone &&
        started < std::sqrt(forced_base * edge.prior)) {
      score = kForcedScore;
    }
    if (score > best_started_score) {
      best_started_score = score;
      best_started = {i, child};
    }
  }
  Selected best = best_started;
  if (best_fresh.edge >= 0) {
    const double fpu =
        FirstPlayUrgency(*node, is_root, draw_score, visited_policy);
    const double fresh_score = fpu + puct_mult * best_fresh_prior;
    // Ties go to the earlier edge, as a single scan in order would.
    if (best.edge < 0 || fresh_score > best_started_score ||
        (fresh_score == best_started_score && best_fresh.edge < best.edge)) {
      best = best_fresh;
    }
  }
  return best;
}

GumbelParams Search::GumbelParamsOf(bool is_root) const {
  GumbelParams g;
  g.considered = params_.gumbel_considered;
  g.sigma = {.c_visit = params_.gumbel_c_visit,
             .c_scale = params_.gumbel_c_scale};
  g.noise = is_root && params_.gumbel_noise;
  g.virtual_loss = params_.virtual_loss;
  return g;
}

Search::Selected Search::SelectGumbel(Node* node, bool is_root) {
  const double draw_score = DrawScoreFor(node->side_to_move);
  int edge;
  if (!is_root) {
    edge = SelectGumbelInterior(*node, draw_score, GumbelParamsOf(false));
  } else {
    if (!gumbel_root_.started()) {
      gumbel_root_.Start(*node, gumbel_budget_, GumbelParamsOf(true),
                         draw_score, &rng_);
    }
    edge = gumbel_root_.Next(*node);
  }
  return {edge, node->child(edge)};
}

double Search::MovesLeftBonus(const Node& node, const Node& child,
                              double utility) const {
  const double strength = std::abs(utility) - params_.mlh_q_threshold;
  if (strength <= 0) return 0;
  const double shorter =
      std::clamp(params_.mlh_slope * (double(child.m) - double(node.m)),
                 -params_.mlh_cap, params_.mlh_cap);
  return (utility > 0 ? -shorter : shorter) * strength /
         (1 - params_.mlh_q_threshold);
}

double Search::FirstPlayUrgency(const Node& node, bool is_root,
                                double draw_score,
                                double visited_policy) const {
  return node.UtilityFor(node.side_to_move, draw_score) -
         (is_root ? params_.fpu_reduction_at_root : params_.fpu_reduction) *
             std::sqrt(visited_policy);
}

void Search::ReleasePath(const Slot& slot) {
  for (Node* n : slot.path) --n->in_flight;
}

void Search::CancelCollisions(Worker* worker) {
  for (Node* node : worker->collided) --node->in_flight;
  worker->collided.clear();
}

}  // namespace volkhv::search
