// Results: the report of a tree (SearchResult, principal variations), the
// move to play and the visit counts that training learns from.
#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/search/search.h"
#include "engine/search/search_internal.h"

namespace volkhv::search {
namespace {

// One edge of a node with its index and its child (null: none yet).
struct Option {
  const Edge* edge = nullptr;
  int index = -1;
  const Node* child = nullptr;
};

// Every edge of `node` with its child, in edge order.
std::vector<Option> Options(const Node& node) {
  std::vector<Option> options(node.num_edges);
  ChildWalk walk(node);
  for (int i = 0; i < node.num_edges; ++i) {
    options[i] = {&node.edges[i], i, walk.At(i)};
  }
  return options;
}

// Move-choice order among the children of a node whose side to move is
// `side`: proven wins (fewest plies first), then unproven and drawn moves
// (most visits, then Q with draws worth `draw_score`, then prior), then proven
// losses (most plies first). Returns true if `a` ranks strictly before `b`.
bool RanksBefore(const Option& a, const Option& b, int side,
                 double draw_score) {
  auto category = [side](const Option& e) {
    if (e.child == nullptr) return 1;
    const Proven p = e.child->ProvenFor(side);
    return p == Proven::kWin ? 0 : p == Proven::kLoss ? 2 : 1;
  };
  const int ca = category(a);
  const int cb = category(b);
  if (ca != cb) return ca < cb;
  if (ca == 0 && a.child->proven_plies != b.child->proven_plies) {
    return a.child->proven_plies < b.child->proven_plies;
  }
  if (ca == 2 && a.child->proven_plies != b.child->proven_plies) {
    return a.child->proven_plies > b.child->proven_plies;
  }
  const uint32_t na = a.child ? a.child->n : 0;
  const uint32_t nb = b.child ? b.child->n : 0;
  if (na != nb) return na > nb;
  if (na > 0) {
    const double qa = a.child->UtilityFor(side, draw_score);
    const double qb = b.child->UtilityFor(side, draw_score);
    if (qa != qb) return qa > qb;
  }
  return a.edge->prior > b.edge->prior;
}

// The first best-ranked edge, or none (edge null) for a node without edges.
// `draw_score`: what a draw is worth to the node's side to move.
Option BestEdge(const Node* node, double draw_score) {
  Option best;
  ChildWalk walk(*node);
  for (int i = 0; i < node->num_edges; ++i) {
    const Option option = {&node->edges[i], i, walk.At(i)};
    if (best.edge == nullptr ||
        RanksBefore(option, best, node->side_to_move, draw_score)) {
      best = option;
    }
  }
  return best;
}

void FillWdl(double wl, double d, float wdl[3]) {
  wdl[0] = static_cast<float>((1 + wl - d) / 2);
  wdl[1] = static_cast<float>(d);
  wdl[2] = static_cast<float>((1 - wl - d) / 2);
}

}  // namespace

std::string_view StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kVisits:
      return "visits";
    case StopReason::kNodes:
      return "nodes";
    case StopReason::kTime:
      return "time";
    case StopReason::kDepth:
      return "depth";
    case StopReason::kStopped:
      return "stopped";
    case StopReason::kProven:
      return "proven";
    case StopReason::kMemory:
      return "memory";
    case StopReason::kGameOver:
      return "game over";
  }
  return "?";
}

std::vector<Move> Search::PrincipalVariation(Move first,
                                             const Node* child) const {
  std::vector<Move> pv = {first};
  const Node* node = child;
  while (node != nullptr && node->n > 0 && node->expanded()) {
    const Option best = BestEdge(node, DrawScoreFor(node->side_to_move));
    if (best.child == nullptr) break;
    // An unvisited child ends the line, unless it is proven (the game's
    // prover's win in one, say): then it is the line's last move.
    if (best.child->n == 0 && best.child->proven() == Proven::kNone) break;
    pv.push_back(best.edge->move);
    node = best.child;
  }
  return pv;
}

float Search::MovesLeft(const Node& node) {
  return node.proven() != Proven::kNone ? node.proven_plies : node.m;
}

SearchResult Search::BuildResult() const {
  SearchResult r;
  const Node* root = tree_.root();
  if (root == nullptr) return r;
  const int side = root->side_to_move;
  r.root_visits = root->n;
  FillWdl(root->wl, root->d, r.root_wdl);
  r.root_q = r.root_wdl[0] - r.root_wdl[2];
  r.root_proven = root->proven();
  r.root_proven_plies = root->proven_plies;
  if (moves_left_seen_ && root->n > 0) r.root_moves_left = MovesLeft(*root);
  if (root->terminal) r.game_result = root_state_->Result();
  r.tree_nodes = tree_.nodes();
  r.tree_bytes = tree_.bytes();
  if (!root->expanded()) return r;
  std::vector<Option> order = Options(*root);
  const double draw_score = DrawScoreFor(side);
  std::stable_sort(order.begin(), order.end(),
                   [side, draw_score](const Option& a, const Option& b) {
                     return RanksBefore(a, b, side, draw_score);
                   });
  r.moves.reserve(order.size());
  for (const Option& option : order) {
    MoveInfo info;
    info.move = option.edge->move;
    info.prior = option.edge->prior;
    const Node* child = option.child;
    if (child != nullptr && child->n > 0) {
      info.visits = child->n;
      FillWdl(child->WlFor(side), child->d, info.wdl);
      info.q = info.wdl[0] - info.wdl[2];
      if (moves_left_seen_) info.moves_left = 1 + MovesLeft(*child);
    }
    if (child != nullptr && child->proven() != Proven::kNone) {
      info.proven = child->ProvenFor(side);
      info.proven_plies = child->proven_plies + 1;
      if (moves_left_seen_) info.moves_left = info.proven_plies;
      if (child->n == 0) {
        // Proven without a visit (the game's prover): the outcome is known.
        FillWdl(info.proven == Proven::kWin    ? 1
                : info.proven == Proven::kLoss ? -1
                                               : 0,
                info.proven == Proven::kDraw ? 1 : 0, info.wdl);
        info.q = info.wdl[0] - info.wdl[2];
      }
    }
    info.pv = PrincipalVariation(info.move, child);
    r.moves.push_back(std::move(info));
  }
  const int gumbel_choice = GumbelChoice();
  r.best_move = gumbel_choice >= 0       ? root->edges[gumbel_choice].move
                : !root_choice_.IsNull() ? root_choice_
                                         : r.moves.front().move;
  return r;
}

SearchResult Search::Report() const { return BuildResult(); }

Move Search::BestMove() const {
  const Node* root = tree_.root();
  if (root == nullptr || !root->expanded()) return Move{};
  if (const int choice = GumbelChoice(); choice >= 0) {
    return root->edges[choice].move;
  }
  if (!root_choice_.IsNull()) return root_choice_;
  return BestEdge(root, params_.draw_score).edge->move;
}

Move Search::SampleMove(double temperature) {
  const Node* root = tree_.root();
  if (root == nullptr || !root->expanded()) return Move{};
  // Gumbel's choice is already a sample (through the root's noise).
  if (GumbelChoice() >= 0) return BestMove();
  std::vector<uint32_t> counts(root->num_edges, 0);
  for (const Node* child = root->first_child; child != nullptr;
       child = child->next_sibling) {
    counts[child->index] = child->n;
  }
  return SampleByCounts(counts, temperature);
}

Move Search::SampleMoveFrom(std::span<const std::pair<Move, uint32_t>> visits,
                            double temperature) {
  const Node* root = tree_.root();
  if (root == nullptr || !root->expanded()) return Move{};
  std::vector<uint32_t> counts(root->num_edges, 0);
  for (size_t k = 0; k < visits.size(); ++k) {
    // Usually in legal-move order (RootVisits()); else look the move up.
    int i = static_cast<int>(k);
    if (i >= root->num_edges || root->edges[i].move != visits[k].first) {
      i = -1;
      for (int j = 0; j < root->num_edges; ++j) {
        if (root->edges[j].move == visits[k].first) {
          i = j;
          break;
        }
      }
    }
    if (i >= 0) counts[i] = visits[k].second;
  }
  return SampleByCounts(counts, temperature);
}

Move Search::SampleByCounts(const std::vector<uint32_t>& counts,
                            double temperature) {
  const Node* root = tree_.root();
  const Option best = BestEdge(root, params_.draw_score);
  const int side = root->side_to_move;
  if (temperature <= 0 || best.child == nullptr ||
      best.child->ProvenFor(side) == Proven::kWin) {
    return best.edge->move;
  }
  // Only counted moves that are not proven losses (BestEdge ranks those
  // last, so if the best is one, every move is).
  std::vector<bool> proven_loss(root->num_edges, false);
  for (const Node* child = root->first_child; child != nullptr;
       child = child->next_sibling) {
    proven_loss[child->index] = child->ProvenFor(side) == Proven::kLoss;
  }
  uint32_t max_count = 0;
  for (int i = 0; i < root->num_edges; ++i) {
    if (!proven_loss[i]) max_count = std::max(max_count, counts[i]);
  }
  if (max_count == 0) return best.edge->move;
  std::vector<double> weights(root->num_edges, 0.0);
  double total = 0;
  for (int i = 0; i < root->num_edges; ++i) {
    if (counts[i] == 0 || proven_loss[i]) continue;
    weights[i] = std::pow(double(counts[i]) / max_count, 1.0 / temperature);
    total += weights[i];
  }
  double x = rng_.Uniform() * total;
  for (int i = 0; i < root->num_edges; ++i) {
    if (weights[i] == 0) continue;
    x -= weights[i];
    if (x < 0) return root->edges[i].move;
  }
  // Rounding: the last candidate.
  for (int i = root->num_edges - 1; i >= 0; --i) {
    if (weights[i] > 0) return root->edges[i].move;
  }
  return best.edge->move;
}

std::vector<std::pair<Move, uint32_t>> Search::RootVisits() const {
  std::vector<std::pair<Move, uint32_t>> visits;
  const Node* root = tree_.root();
  if (root == nullptr) return visits;
  const bool decided =
      root->proven() == Proven::kWin || root->proven() == Proven::kLoss;
  const int best = decided && root->expanded()
                       ? BestEdge(root, params_.draw_score).index
                       : -1;
  ChildWalk walk(*root);
  for (int i = 0; i < root->num_edges; ++i) {
    const Node* child = walk.At(i);
    uint32_t n = child != nullptr ? child->n : 0;
    if (best >= 0) n = i == best ? std::max<uint32_t>(root->n, 2) - 1 : 0;
    visits.emplace_back(root->edges[i].move, n);
  }
  return visits;
}

std::vector<std::pair<Move, uint32_t>> Search::PrunedRootVisits() const {
  std::vector<std::pair<Move, uint32_t>> visits = RootVisits();
  const Node* root = tree_.root();
  const double k = params_.forced_playouts_k;
  if (k <= 0 || root == nullptr || !root->expanded()) return visits;
  const int side = root->side_to_move;
  // c*: the most visited child; ties in move-choice order.
  const std::vector<Option> options = Options(*root);
  const Option* best = nullptr;
  int64_t total = 0;
  for (const Option& option : options) {
    const uint32_t n = option.child != nullptr ? option.child->n : 0;
    total += n;
    if (n == 0) continue;
    if (best == nullptr || n > best->child->n ||
        (n == best->child->n &&
         RanksBefore(option, *best, side, params_.draw_score))) {
      best = &option;
    }
  }
  if (best == nullptr) return visits;
  const double mult = PuctMultiplier(params_, root->n, total);
  const double bar = best->child->UtilityFor(side, params_.draw_score) +
                     mult * best->edge->prior / (1.0 + best->child->n);
  for (int i = 0; i < root->num_edges; ++i) {
    const Option& option = options[i];
    const uint32_t n = visits[i].second;
    // A proven win keeps its visits: it is the move to learn.
    if (i == best->index || n == 0 ||
        option.child->ProvenFor(side) == Proven::kWin) {
      continue;
    }
    const double prior = std::max(option.edge->prior, 0.0f);
    // At most the visits that forcing could have added.
    const double forced = std::floor(std::sqrt(k * prior * total));
    uint32_t keep = forced >= n ? 0 : n - static_cast<uint32_t>(forced);
    // The fewest visits m with Q + mult * P / (1 + m) < bar: m = floor(x)
    // for x = mult * P / (bar - Q); none can go when Q >= bar.
    const double gap = bar - option.child->UtilityFor(side, params_.draw_score);
    uint32_t fewest = n;
    if (gap > 0) {
      const double x = mult * prior / gap;
      if (x < n) fewest = static_cast<uint32_t>(std::floor(x));
    }
    keep = std::max(keep, fewest);
    visits[i].second = keep <= 1 ? 0 : keep;
  }
  return visits;
}

int Search::GumbelChoice() const {
  const Node* root = tree_.root();
  if (!params_.gumbel || !gumbel_root_.started() || root == nullptr ||
      !root->expanded() || root->proven() != Proven::kNone) {
    return -1;
  }
  return gumbel_root_.Choice(*root);
}

std::vector<std::pair<Move, float>> Search::ImprovedRootPolicy() const {
  std::vector<std::pair<Move, float>> policy;
  const Node* root = tree_.root();
  if (!params_.gumbel || !gumbel_root_.started() || root == nullptr ||
      !root->expanded()) {
    return policy;
  }
  const std::vector<double> p = gumbel_root_.ImprovedPolicy(*root);
  policy.reserve(p.size());
  for (int i = 0; i < root->num_edges; ++i) {
    policy.emplace_back(root->edges[i].move, static_cast<float>(p[i]));
  }
  return policy;
}

}  // namespace volkhv::search
