// The search tree's memory layout: one 56-byte Node per position reached and,
// once a node is expanded, one array of 8-byte Edges (move, prior). Children
// are allocated on their first visit and hang from their parent in a list
// (first_child, next_sibling) sorted by their edge's index, as in lc0's
// classic tree, so an edge holds no child pointer: a loop over the edges in
// order finds each one's child in the same pass (ChildWalk). An expanded node
// with k legal moves costs 56 + 8 k bytes plus 56 bytes per visited child
// (Tree::bytes() counts exactly this).
#ifndef VOLKHV_ENGINE_SEARCH_NODE_H_
#define VOLKHV_ENGINE_SEARCH_NODE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/game/move.h"

namespace volkhv::search {

// A proven game-theoretic value, from the point of view of the side to move
// in the node it describes.
enum class Proven : uint8_t { kNone = 0, kWin, kDraw, kLoss };

// The same value from the other player's point of view.
constexpr Proven Flip(Proven p) {
  return p == Proven::kWin    ? Proven::kLoss
         : p == Proven::kLoss ? Proven::kWin
                              : p;
}

struct Edge {
  Move move;
  float prior = 0;  // after softmax temperature (and root noise)
};
static_assert(sizeof(Edge) == 8, "Edge: 4 (move) + 4 (prior)");

// Values are kept from the node's own side to move's point of view, so a node
// means the same thing wherever it hangs (tree reuse needs no rewrite) and a
// game where a player moves twice in a row needs no special case.
//
// Invariants outside a Run: in_flight == 0; n > 0 implies expanded or proven
// (terminal nodes are proven); for an expanded unproven node the children's
// n sum to n - 1 (its first visit evaluated it). The children list holds at
// most one child per edge, in increasing `index` order.
// Plain data: Tree allocates nodes from its pool, links children and frees
// edge arrays.
// Two players: side_to_move is GameState::SideToMove() (0 or 1).
struct Node {
  Edge* edges = nullptr;         // num_edges entries once expanded, else null
  Node* first_child = nullptr;   // the child with the lowest edge index
  Node* next_sibling = nullptr;  // the parent's next child (higher index)
  double wl = 0;                 // mean of W - L over the n visits
  float d = 0;                   // mean draw probability over the n visits
  uint32_t n = 0;                // completed visits
  uint32_t in_flight = 0;  // visits started in this minibatch, not backed up
  float m = 0;  // mean plies to the end over the n visits (moves-left head;
                // without one, 0 at the leaves)
  uint16_t num_edges = 0;  // <= kMaxMoves (engine/game/move.h)
  uint16_t index = 0;      // this node's edge in its parent's edges
  uint8_t side_to_move : 1 = 0;
  uint8_t terminal : 1 = 0;     // the game is over here (proven != kNone)
  uint8_t proven_bits : 2 = 0;  // a Proven; use proven() / set_proven()
  uint8_t proven_plies = 0;     // plies to the end of the game when proven
                                // (saturates at 255)
  // The minimax of the leaf values below (implicit minimax backups): a node
  // without a visited child has its own first value, any other the best of
  // its visited children's for its side to move, a proven node its exact
  // value; W - L times kMinimaxUnit. Meaningful once n > 0.
  int16_t minimax = 0;

  Proven proven() const { return static_cast<Proven>(proven_bits); }
  void set_proven(Proven p) { proven_bits = static_cast<uint8_t>(p); }
  bool expanded() const { return edges != nullptr; }
  std::span<Edge> edge_span() { return {edges, num_edges}; }
  std::span<const Edge> edge_span() const { return {edges, num_edges}; }
  // The child of edge `i`, or null if it has none; walks the children list
  // (prefer ChildWalk in a loop over the edges).
  Node* child(int i) const {
    Node* c = first_child;
    while (c != nullptr && c->index < i) c = c->next_sibling;
    return c != nullptr && c->index == i ? c : nullptr;
  }
  // Mean W - L from the point of view of `side` (0 or 1).
  double WlFor(int side) const { return side == side_to_move ? wl : -wl; }
  // WlFor(side) with a draw worth `draw_score` to `side` instead of 0.
  double UtilityFor(int side, double draw_score) const {
    return WlFor(side) + draw_score * d;
  }
  Proven ProvenFor(int side) const {
    return side == side_to_move ? proven() : Flip(proven());
  }
  // The minimax value in W - L, from the point of view of `side`.
  double MinimaxFor(int side) const {
    const double v = minimax / kMinimaxUnit;
    return side == side_to_move ? v : -v;
  }
  // Stores a W - L value in [-1, 1] (clamped) as the minimax; returns
  // whether it changed.
  bool SetMinimax(double wl) {
    const auto q = static_cast<int16_t>(
        std::lround(std::clamp(wl, -1.0, 1.0) * kMinimaxUnit));
    if (q == minimax) return false;
    minimax = q;
    return true;
  }
  static constexpr double kMinimaxUnit = 32767;
};
static_assert(sizeof(Node) == 56,
              "Node: 8 (edges) + 8 (first_child) + 8 (next_sibling) + 8 (wl) "
              "+ 4 (d) + 4 (n) + 4 (in_flight) + 4 (m) + 2 (num_edges) + "
              "2 (index) + 1 (flags) + 1 (proven_plies) + 2 (minimax)");
static_assert(kMaxMoves <= UINT16_MAX,
              "Node::num_edges and Node::index hold any move count");

// The children of one node's edges in edge order, in one pass over its
// children list: At(i) is edge i's child or null, for i that never decrease
// from call to call. `N` is Node or const Node. Valid while no child is added
// to or removed from the node.
template <typename N>
class ChildWalk {
 public:
  explicit ChildWalk(N& node) : next_(node.first_child) {}
  N* At(int i) {
    while (next_ != nullptr && next_->index < i) next_ = next_->next_sibling;
    return next_ != nullptr && next_->index == i ? next_ : nullptr;
  }

 private:
  N* next_;
};

// Every edge's child (null where none), in edge order.
inline std::vector<const Node*> ChildrenByEdge(const Node& node) {
  std::vector<const Node*> children(node.num_edges, nullptr);
  for (const Node* c = node.first_child; c != nullptr; c = c->next_sibling) {
    children[c->index] = c;
  }
  return children;
}

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_NODE_H_
