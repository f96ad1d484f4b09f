// Backup: the values of evaluated and proven leaves added along their paths,
// proven values propagated towards the root (the MCTS solver) and the
// minimax of the leaf values along the path (implicit minimax backups).
#include <algorithm>
#include <climits>
#include <span>

#include "engine/search/search.h"
#include "engine/search/search_internal.h"

namespace volkhv::search {

void Search::Backup(std::span<Node* const> path, double wl, double d,
                    double plies_left, int side, bool leaf_proven_now,
                    RunStats* stats) {
  double m = plies_left + static_cast<double>(path.size());
  for (Node* node : path) {
    const double v = node->side_to_move == side ? wl : -wl;
    m -= 1;  // plies_left + the plies from this node down to the leaf
    ++node->n;
    --node->in_flight;
    // A proven node keeps its exact value (leaves of the same minibatch
    // below it may still come back with estimates).
    if (node->proven() != Proven::kNone && !node->terminal) continue;
    const double inv_n = 1.0 / node->n;
    node->wl += (v - node->wl) * inv_n;
    node->d += static_cast<float>((d - node->d) * inv_n);
    node->m += static_cast<float>((m - node->m) * inv_n);
  }
  stats->Playout(path.size());
  if (leaf_proven_now) {
    for (int i = static_cast<int>(path.size()) - 2; i >= 0; --i) {
      if (!UpdateProven(path[i])) break;
    }
  }
  UpdateMinimax(path, path.back()->side_to_move == side ? wl : -wl);
}

void Search::UpdateMinimax(std::span<Node* const> path, double leaf_wl) {
  Node* leaf = path.back();
  leaf->SetMinimax(leaf->proven() != Proven::kNone ? leaf->wl : leaf_wl);
  // Only the path's nodes can change, each through its child on the path:
  // once one keeps its value, so do the nodes above it. (The leaf's parent
  // is always recomputed: a new leaf enters its maximum even when its value
  // is the default.)
  for (int i = static_cast<int>(path.size()) - 2; i >= 0; --i) {
    Node* node = path[i];
    double best = -1;
    if (node->proven() != Proven::kNone) {
      best = node->wl;
    } else {
      for (const Node* child = node->first_child; child != nullptr;
           child = child->next_sibling) {
        if (child->n == 0) continue;  // no value yet, or a known loss
        best = std::max(best, child->MinimaxFor(node->side_to_move));
      }
    }
    if (!node->SetMinimax(best)) break;
  }
}

bool Search::UpdateProven(Node* node) {
  if (node->proven() != Proven::kNone || !node->expanded()) return false;
  const int side = node->side_to_move;
  int shortest_win = INT_MAX;
  int longest_loss = -1;
  int shortest_draw = INT_MAX;
  // Some child's value is not proven (an edge without a child counts).
  bool open = false;
  int children = 0;
  for (const Node* child = node->first_child; child != nullptr;
       child = child->next_sibling) {
    ++children;
    if (child->proven() == Proven::kNone) {
      open = true;
      continue;
    }
    const int plies = child->proven_plies + 1;
    switch (child->ProvenFor(side)) {
      case Proven::kWin:
        shortest_win = std::min(shortest_win, plies);
        break;
      case Proven::kDraw:
        shortest_draw = std::min(shortest_draw, plies);
        break;
      case Proven::kLoss:
        longest_loss = std::max(longest_loss, plies);
        break;
      case Proven::kNone:
        break;
    }
  }
  if (children < node->num_edges) open = true;
  if (shortest_win != INT_MAX) {
    SetProven(node, Proven::kWin, shortest_win);
  } else if (open) {
    return false;
  } else if (shortest_draw != INT_MAX) {
    SetProven(node, Proven::kDraw, shortest_draw);
  } else {
    SetProven(node, Proven::kLoss, longest_loss);
  }
  return true;
}

}  // namespace volkhv::search
