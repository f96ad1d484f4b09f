// Ownership of the search tree: allocation with byte accounting (for the
// memory cap), release in O(nodes) with an explicit stack (no recursion, so
// deep trees cannot overflow the call stack), and keeping a subtree as the
// new root when the game moves on.
#ifndef VOLKHV_ENGINE_SEARCH_TREE_H_
#define VOLKHV_ENGINE_SEARCH_TREE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/game/move.h"
#include "engine/search/node.h"

namespace volkhv::search {

// Not thread-safe: one thread uses a Tree at a time.
class Tree {
 public:
  Tree() = default;
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;
  ~Tree() { Clear(); }

  Node* root() const { return root_; }
  // Frees everything and starts over with a fresh unvisited root.
  void Reset();
  // Frees everything; root() becomes null.
  void Clear();

  // A new unvisited node, counted.
  Node* NewNode();
  // A new unvisited node as the child of `parent`'s edge `index`, linked
  // into its children list in index order. Requires an expanded `parent`
  // and no child at `index` yet.
  Node* AddChild(Node* parent, int index);
  // Gives `node` an edge array for `moves` (priors zero, no children).
  void Expand(Node* node, std::span<const Move> moves);

  // Follows `moves` from the root. If every move leads to an existing child,
  // that child becomes the root, the rest of the tree is freed and true is
  // returned; otherwise the tree is reset to a fresh root and false returned.
  bool Descend(std::span<const Move> moves);

  uint64_t nodes() const { return nodes_; }
  uint64_t edges() const { return edges_; }
  // Bytes of nodes and edge arrays (allocator overhead not counted).
  uint64_t bytes() const {
    return nodes_ * sizeof(Node) + edges_ * sizeof(Edge);
  }
  // What expanding a node with `num_moves` legal moves adds.
  static uint64_t ExpansionBytes(int num_moves) {
    return uint64_t(num_moves) * sizeof(Edge);
  }

 private:
  // Frees `subtree` and everything below it.
  void Release(Node* subtree);

  // Nodes come from chunks (fewer allocator calls, cheaper release); freed
  // nodes are chained through their `next_sibling` field for reuse.
  static constexpr int kChunkNodes = 1 << 12;
  std::vector<std::unique_ptr<Node[]>> chunks_;
  int chunk_used_ = kChunkNodes;  // nodes handed out of chunks_.back()
  Node* free_nodes_ = nullptr;

  Node* root_ = nullptr;
  uint64_t nodes_ = 0;
  uint64_t edges_ = 0;
  std::vector<Node*> stack_;  // Release's work list, kept to reuse capacity
};

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_TREE_H_
