// Gumbel AlphaZero's selection over the search tree (engine/search/node.h):
// the root's Gumbel-top-k and Sequential Halving over one Run's simulation
// budget, the move it chooses, its improved policy (the policy training
// target), and the deterministic selection below the root. The arithmetic is
// in engine/search/gumbel.h; this file reads the nodes.
//
// Values: a child's Q is its utility for the side to move at the node
// (Node::UtilityFor with that side's draw score), counting each in-flight
// visit as `virtual_loss` losses, as the PUCT selection does; a node's own
// network value is recovered from its totals (NetworkValue). Proven losses
// are never chosen at the root while another move is not one, and a proven
// win is chosen at once.
#ifndef VOLKHV_ENGINE_SEARCH_GUMBEL_SELECT_H_
#define VOLKHV_ENGINE_SEARCH_GUMBEL_SELECT_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/game/move.h"
#include "engine/search/gumbel.h"
#include "engine/search/node.h"
#include "engine/util/random.h"

namespace volkhv::search {

struct GumbelParams {
  int considered = 16;  // m: root actions sampled by Gumbel-top-k
  gumbel::SigmaParams sigma;
  bool noise = true;  // sample Gumbel noise (self-play); false: g = 0
  double virtual_loss = 1;
};

// The utility of `node` to its own side to move as the network saw it at its
// first visit: its total minus what its children backed up. Requires n > 0.
double NetworkValue(const Node& node, double draw_score);

// Below the root: the edge index maximising improved_policy - visits / (1 +
// total visits), visits counting those in flight. Requires an expanded
// node. Thread-compatible (reads the node).
int SelectGumbelInterior(const Node& node, double draw_score,
                         const GumbelParams& params);

// The root of one Run: which action each simulation visits, and the result.
// Not thread-safe.
class GumbelRoot {
 public:
  // Starts a Run of `budget` simulations at the expanded `root` (whose
  // children may hold visits from earlier Runs: only this Run's count).
  // Draws the Gumbel noise from `rng` when params.noise.
  void Start(const Node& root, int budget, const GumbelParams& params,
             double draw_score, Rng* rng);
  bool started() const { return started_; }
  void Reset() { started_ = false; }

  // The edge index of the root's next simulation: among the considered
  // actions whose visits in this Run (in flight included) equal the
  // schedule's count for this simulation, the best by g + logit +
  // sigma(completed Q); past the schedule, the best surviving action.
  int Next(const Node& root);
  // The move to play: the best surviving action (those with the most visits
  // in this Run) by g + logit + sigma(completed Q); a proven win at once.
  // Requires Start.
  int Choice(const Node& root) const;
  // softmax(logit + sigma(completed Q)) over every root edge, in edge
  // order: the policy training target. Requires Start.
  std::vector<double> ImprovedPolicy(const Node& root) const;

 private:
  // The completed, rescaled Q-values of every root edge.
  std::vector<double> CompletedQ(const Node& root) const;
  // The visits in this Run (in flight included) of root edge `edge`, whose
  // child is `child` (may be null).
  uint32_t RunVisits(const Node* child, int edge) const;
  // The considered actions that are not proven losses (all of them if every
  // one is); `children`: ChildrenByEdge(root).
  std::vector<int> Candidates(const Node& root,
                              const std::vector<const Node*>& children) const;
  // Whether `child` (a root edge's child, may be null) is a proven loss for
  // the root's side to move.
  static bool LostEdge(const Node& root, const Node* child);
  // The first root edge whose child is a proven win for the root's side to
  // move, or -1.
  static int ProvenWinEdge(const Node& root);

  bool started_ = false;
  GumbelParams params_;
  double draw_score_ = 0;
  std::vector<double> logits_;      // per edge
  std::vector<double> gumbel_;      // per edge (0 without noise)
  std::vector<uint32_t> base_n_;    // per edge: visits before this Run
  std::vector<int> considered_;     // edge indices, best first
  std::vector<uint32_t> sequence_;  // the Sequential Halving schedule
  uint32_t simulations_ = 0;        // root simulations sent in this Run
};

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_GUMBEL_SELECT_H_
