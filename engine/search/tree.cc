#include "engine/search/tree.h"

#include <new>

namespace volkhv::search {

void Tree::Clear() {
  if (root_ != nullptr) Release(root_);
  root_ = nullptr;
  // Nothing is left in the chunks: give their memory back.
  chunks_.clear();
  chunk_used_ = kChunkNodes;
  free_nodes_ = nullptr;
}

void Tree::Reset() {
  Clear();
  root_ = NewNode();
}

Node* Tree::NewNode() {
  ++nodes_;
  Node* node;
  if (free_nodes_ != nullptr) {
    node = free_nodes_;
    free_nodes_ = reinterpret_cast<Node*>(node->edges);
  } else {
    if (chunk_used_ == kChunkNodes) {
      chunks_.push_back(std::make_unique_for_overwrite<Node[]>(kChunkNodes));
      chunk_used_ = 0;
    }
    node = &chunks_.back()[chunk_used_++];
  }
  return new (node) Node;
}

void Tree::Expand(Node* node, std::span<const Move> moves) {
  node->edges = new Edge[moves.size()];
  node->num_edges = static_cast<uint16_t>(moves.size());
  for (size_t i = 0; i < moves.size(); ++i) node->edges[i].move = moves[i];
  edges_ += moves.size();
}

void Tree::Release(Node* subtree) {
  stack_.clear();
  stack_.push_back(subtree);
  while (!stack_.empty()) {
    Node* node = stack_.back();
    stack_.pop_back();
    for (const Edge& edge : node->children()) {
      if (edge.child != nullptr) stack_.push_back(edge.child);
    }
    edges_ -= node->num_edges;
    delete[] node->edges;
    node->edges = reinterpret_cast<Edge*>(free_nodes_);
    free_nodes_ = node;
    --nodes_;
  }
}

bool Tree::Descend(std::span<const Move> moves) {
  if (root_ == nullptr) {
    Reset();
    return false;
  }
  Edge* link = nullptr;  // the edge that points at the new root
  Node* node = root_;
  for (Move move : moves) {
    link = nullptr;
    for (Edge& edge : node->children()) {
      if (edge.move == move) {
        link = &edge;
        break;
      }
    }
    if (link == nullptr || link->child == nullptr) {
      Reset();
      return false;
    }
    node = link->child;
  }
  if (link == nullptr) return true;  // no moves: the root stays
  link->child = nullptr;  // detach, so releasing the old root spares it
  Release(root_);
  root_ = node;
  return true;
}

}  // namespace volkhv::search
