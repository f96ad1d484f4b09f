#include "engine/search/tree.h"

#include <cassert>
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
    free_nodes_ = node->next_sibling;
  } else {
    if (chunk_used_ == kChunkNodes) {
      chunks_.push_back(std::make_unique_for_overwrite<Node[]>(kChunkNodes));
      chunk_used_ = 0;
    }
    node = &chunks_.back()[chunk_used_++];
  }
  return new (node) Node;
}

Node* Tree::AddChild(Node* parent, int index) {
  assert(index >= 0 && index < parent->num_edges);
  Node** link = &parent->first_child;
  while (*link != nullptr && (*link)->index < index) {
    link = &(*link)->next_sibling;
  }
  assert((*link == nullptr || (*link)->index != index) &&
         "the edge has a child already");
  Node* child = NewNode();
  child->index = static_cast<uint16_t>(index);
  child->next_sibling = *link;
  *link = child;
  return child;
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
    for (Node* c = node->first_child; c != nullptr; c = c->next_sibling) {
      stack_.push_back(c);
    }
    edges_ -= node->num_edges;
    delete[] node->edges;
    node->edges = nullptr;
    node->next_sibling = free_nodes_;
    free_nodes_ = node;
    --nodes_;
  }
}

bool Tree::Descend(std::span<const Move> moves) {
  if (root_ == nullptr) {
    Reset();
    return false;
  }
  Node* parent = nullptr;  // the new root's parent
  Node* node = root_;
  for (Move move : moves) {
    int index = -1;
    for (int i = 0; i < node->num_edges; ++i) {
      if (node->edges[i].move == move) {
        index = i;
        break;
      }
    }
    Node* child = index >= 0 ? node->child(index) : nullptr;
    if (child == nullptr) {
      Reset();
      return false;
    }
    parent = node;
    node = child;
  }
  if (parent == nullptr) return true;  // no moves: the root stays
  // Detach the new root, so releasing the old one spares it.
  Node** link = &parent->first_child;
  while (*link != node) link = &(*link)->next_sibling;
  *link = node->next_sibling;
  node->next_sibling = nullptr;
  node->index = 0;
  Release(root_);
  root_ = node;
  return true;
}

}  // namespace volkhv::search
