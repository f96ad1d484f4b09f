// What the files of the search (engine/search/search.h says which file
// implements which methods) share: the per-leaf and per-Run working data and
// small helpers on proven values. Private to engine/search/*.cc.
#ifndef VOLKHV_ENGINE_SEARCH_SEARCH_INTERNAL_H_
#define VOLKHV_ENGINE_SEARCH_SEARCH_INTERNAL_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/game/game.h"
#include "engine/game/move.h"
#include "engine/game/result.h"
#include "engine/search/alphabeta.h"
#include "engine/search/node.h"
#include "engine/search/search.h"
#include "engine/search/search_params.h"

namespace volkhv::search {

using Clock = std::chrono::steady_clock;

inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline Proven ProvenOf(Outcome outcome) {
  switch (outcome) {
    case Outcome::kWin:
      return Proven::kWin;
    case Outcome::kDraw:
      return Proven::kDraw;
    case Outcome::kLoss:
      return Proven::kLoss;
    case Outcome::kOngoing:
      break;
  }
  return Proven::kNone;
}

// The exact W - L and D of a proven value.
inline double ExactWl(Proven p) {
  return p == Proven::kWin ? 1.0 : p == Proven::kLoss ? -1.0 : 0.0;
}
inline double ExactD(Proven p) { return p == Proven::kDraw ? 1.0 : 0.0; }
inline void SetProven(Node* node, Proven p, int plies) {
  node->set_proven(p);
  node->proven_plies = static_cast<uint8_t>(std::min(plies, 255));
  node->wl = ExactWl(p);
  node->d = static_cast<float>(ExactD(p));
  node->SetMinimax(node->wl);
}

// PUCT's exploration factor cpuct(n) * sqrt(children) of a node with `n`
// visits whose children have `children` visits (started ones included).
inline double PuctMultiplier(const SearchParams& params, uint32_t n,
                             int64_t children) {
  const double cpuct = params.cpuct_init +
                       params.cpuct_factor * std::log((n + params.cpuct_base) /
                                                      params.cpuct_base);
  return cpuct * std::sqrt(static_cast<double>(std::max<int64_t>(children, 1)));
}

// One leaf of a minibatch: its path from the root and a copy of the game
// played along it. The state is at the root between minibatches.
struct Search::Slot {
  std::unique_ptr<GameState> state;
  bool in_sync = false;     // state is a copy of root_state_
  std::vector<Node*> path;  // root first
  std::vector<Move> moves;  // path.size() - 1 moves
  MoveList legal;           // the leaf's legal moves (all of them)
  // With a move filter (Search::SetMoveFilter) that removes some of them:
  // the moves kept, and each one's index in `legal`.
  bool filtered = false;
  MoveList kept_moves;
  std::vector<int> kept;
  // The moves the leaf is expanded with.
  const MoveList& ExpandMoves() const { return filtered ? kept_moves : legal; }
  // The leaf is proven (terminal or solved): backed up with its exact value
  // along with the evaluated leaves, not sent to the evaluator. Until then
  // its path carries virtual loss like any other pending leaf, so a proven
  // child cannot soak up the visits its in-flight siblings are denied.
  bool known = false;
  bool proven_now = false;  // known, and proven by this visit (terminal)
  // Per legal move, in how many plies the opponent can then win at the
  // latest: 1 (avoid_immediate_losses), 3 (avoid_unstoppable_threats), 0
  // for the other moves; empty when no move allows a quick win.
  std::vector<uint8_t> allows_win;
};

struct Search::RunStats {
  uint64_t playouts = 0;
  uint64_t evaluations = 0;
  uint64_t batches = 0;
  double eval_seconds = 0;
  uint64_t depth_sum = 0;
  int max_depth = 0;

  void Playout(size_t path_size) {
    ++playouts;
    const int depth = static_cast<int>(path_size) - 1;
    depth_sum += depth;
    max_depth = std::max(max_depth, depth);
  }
  void Add(const RunStats& other) {
    playouts += other.playouts;
    evaluations += other.evaluations;
    batches += other.batches;
    eval_seconds += other.eval_seconds;
    depth_sum += other.depth_sum;
    max_depth = std::max(max_depth, other.max_depth);
  }
};

// One search thread's working memory, reused from minibatch to minibatch:
// the leaves of its minibatch and its counters. Guarded by Search::mutex_,
// except that its own thread reads the pending slots' states (quiescence
// plays moves on them and takes them back) and writes `requests`,
// `evaluations`, `eval_seconds` and the quiescence fields while it
// evaluates them unlocked (no other search thread touches a worker's slots
// or those fields). With a leaf search, the thread EvaluateBatch starts
// for the Evaluator call reads the states and writes `evaluations` and
// `eval_seconds` while the worker's thread, which only reads the states
// then, writes the quiescence fields.
struct Search::Worker {
  std::vector<std::unique_ptr<Slot>> slots;
  int num_pending = 0;          // slots[0, num_pending) are this minibatch
  uint64_t pending_bytes = 0;   // edge bytes its pending leaves will take
  std::vector<Node*> collided;  // nodes whose in_flight a collision raised
  int collisions = 0;
  std::vector<nn::EvalRequest> requests;
  std::vector<nn::Evaluation> evaluations;
  // leaf_quiescence_weight: the pending leaves' quiescence W - L and the
  // move it was reached by (null when standing pat was best), one per
  // request, and the alpha-beta search that scores them (made on first use).
  std::vector<float> quiescence_wl;
  std::vector<Move> quiescence_move;
  std::unique_ptr<AlphaBetaSearch> quiescence;
  double eval_seconds = 0;  // the pending minibatch's Evaluate call
  RunStats stats;           // this Run's, up to the last backup
};

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_SEARCH_INTERNAL_H_
