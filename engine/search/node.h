// The search tree's memory layout: one 32-byte Node per position reached and,
// once a node is expanded, one array of 16-byte Edges (move, prior, child).
// Children are allocated on their first visit, so an expanded node with k
// legal moves costs 32 + 16 k bytes plus 32 bytes per visited child.
#ifndef VOLKHV_ENGINE_SEARCH_NODE_H_
#define VOLKHV_ENGINE_SEARCH_NODE_H_

#include <cstdint>
#include <span>

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

struct Node;

struct Edge {
  Move move;
  float prior = 0;        // after softmax temperature (and root noise)
  Node* child = nullptr;  // null until the move is first visited
};
static_assert(sizeof(Edge) == 16, "Edge: 4 (move) + 4 (prior) + 8 (child)");

// Values are kept from the node's own side to move's point of view, so a node
// means the same thing wherever it hangs (tree reuse needs no rewrite) and a
// game where a player moves twice in a row needs no special case.
//
// Invariants outside a Run: in_flight == 0; n > 0 implies expanded or proven
// (terminal nodes are proven); for an expanded unproven node the children's
// n sum to n - 1 (its first visit evaluated it).
// Plain data: Tree allocates nodes from its pool and frees edge arrays.
// Two players: side_to_move is GameState::SideToMove() (0 or 1).
struct Node {
  Edge* edges = nullptr;   // num_edges entries once expanded, else null
  double wl = 0;           // mean of W - L over the n visits
  float d = 0;             // mean draw probability over the n visits
  uint32_t n = 0;          // completed visits
  uint32_t in_flight = 0;  // visits started in this minibatch, not backed up
  uint16_t num_edges = 0;  // <= kMaxMoves (engine/game/move.h)
  uint8_t side_to_move : 1 = 0;
  uint8_t terminal : 1 = 0;     // the game is over here (proven != kNone)
  uint8_t proven_bits : 2 = 0;  // a Proven; use proven() / set_proven()
  uint8_t proven_plies = 0;     // plies to the end of the game when proven
                                // (saturates at 255)

  Proven proven() const { return static_cast<Proven>(proven_bits); }
  void set_proven(Proven p) { proven_bits = static_cast<uint8_t>(p); }
  bool expanded() const { return edges != nullptr; }
  std::span<Edge> children() { return {edges, num_edges}; }
  std::span<const Edge> children() const { return {edges, num_edges}; }
  // Mean W - L from the point of view of `side` (0 or 1).
  double WlFor(int side) const { return side == side_to_move ? wl : -wl; }
  // WlFor(side) with a draw worth `draw_score` to `side` instead of 0.
  double UtilityFor(int side, double draw_score) const {
    return WlFor(side) + draw_score * d;
  }
  Proven ProvenFor(int side) const {
    return side == side_to_move ? proven() : Flip(proven());
  }
};
static_assert(sizeof(Node) == 32,
              "Node: 8 (edges) + 8 (wl) + 4 (d) + 4 (n) + 4 (in_flight) + "
              "2 (num_edges) + 1 (flags) + 1 (proven_plies)");
static_assert(kMaxMoves <= UINT16_MAX, "Node::num_edges holds any move count");

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_NODE_H_
