// PUCT Monte-Carlo tree search over the game interface (engine/game/game.h)
// with leaf minibatches sent to an nn::Evaluator and, where the game has one,
// a Prover for its tactics. Knows nothing of any game.
//
// The methods are implemented by concern, one file each:
//   search.cc          life cycle (positions, tree reuse, root noise) and the
//                      Run loop (minibatches, limits)
//   selection.cc       the descent to a leaf: PUCT, first-play urgency,
//                      forced playouts, virtual loss, collisions; or
//                      Gumbel AlphaZero's rules (gumbel_select.h)
//   leaf_extension.cc  a new leaf: game end and repetition, the prover's
//                      tactics, the memory cap, evaluation and expansion
//   backup.cc          values along the path, proven values and minimax upwards
//   results.cc         the report (SearchResult, PVs), move choice and the
//                      root visit counts and improved policy for training
// search_internal.h holds what those files share.
#ifndef VOLKHV_ENGINE_SEARCH_SEARCH_H_
#define VOLKHV_ENGINE_SEARCH_SEARCH_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "engine/game/game.h"
#include "engine/game/heuristic.h"
#include "engine/game/prover.h"
#include "engine/search/alphabeta.h"
#include "engine/search/gumbel_select.h"
#include "engine/search/search_params.h"
#include "engine/search/search_result.h"
#include "engine/search/tree.h"
#include "engine/util/random.h"
#include "nn/evaluator.h"

namespace volkhv::search {

// Called on the thread running Run, every progress_interval_ms.
using ProgressCallback = std::function<void(const SearchResult&)>;

// One search tree and the means to grow it. A Search is thread-compatible:
// one thread at a time calls its methods (each says so below). A running
// Run is stopped from any thread through its stop flag. Any number of
// Searches on different threads may share one Evaluator (which is
// thread-safe). With SearchParams::search_threads 1 (the default) Run grows
// the tree on the calling thread and, with a fixed seed, is deterministic
// (time limits aside). With N > 1, Run starts N - 1 more threads that grow
// the same tree (lc0's scheme): each gathers a minibatch under one lock,
// with virtual loss steering the threads apart, evaluates it without the
// lock (so one thread selects while another waits for the network), and
// backs it up under the lock; the result then depends on thread timing.
class Search {
 public:
  // ---- Life cycle and Run: search.cc ----

  // `evaluator` must outlive the Search. `prover` (the game's tactics,
  // engine/games/games.h: GameProver) may be null (no tactics: the search
  // finds those wins by searching); if not, it must outlive the Search.
  // `seed` drives root noise and SampleMove. Thread-safe (touches nothing
  // shared).
  Search(const SearchParams& params, nn::Evaluator* evaluator,
         const Prover* prover, uint64_t seed);
  ~Search();
  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;

  // The game's static evaluation for leaf_quiescence_weight (search_params.h);
  // null (the default) turns that option off. Must match the game searched
  // and outlive the Search. Not thread-safe.
  void SetHeuristic(const Heuristic* heuristic) { heuristic_ = heuristic; }

  // New parameters for the next Run; the tree is kept. Not thread-safe.
  void SetParams(const SearchParams& params);
  const SearchParams& params() const { return params_; }

  // Searches `start` after `moves` (each legal in turn). The tree is kept
  // when `start` is the previous start (same PositionText, Hash and
  // PliesPlayed) and the previous moves are a prefix of `moves` whose
  // continuation the tree holds (lc0-style); otherwise a fresh tree.
  // Returns InvalidArgument (and leaves the search unchanged) if a move is
  // not legal. Not thread-safe; `start` is only read during the call.
  absl::Status SetPosition(const GameState& start,
                           std::span<const Move> moves = {});
  // Plays `move` (legal at the root) and keeps its subtree as the new root;
  // the rest of the tree is freed. FailedPrecondition before SetPosition,
  // InvalidArgument for an illegal move. Not thread-safe.
  absl::Status Advance(Move move);
  // Forgets the tree (the position stays). Not thread-safe.
  void ClearTree();
  // Restricts the moves tried at the nodes the rules apply to (a rule
  // applies at a node of its side fewer than until_depth plies below the
  // root): a move is tried there when every allow rule lists it and no
  // avoid rule does; where that leaves no legal move, the rules are ignored
  // at that node. The evaluator still sees every legal move (its cache
  // stays valid); the kept moves share the priors' mass. A filter other
  // than the current one forgets the tree (it was grown under the old
  // one); SetPosition and Advance to another root drop the filter and, if
  // there was one, the tree. Empty: every move. Not thread-safe.
  void SetMoveFilter(std::vector<MoveRule> rules);
  const std::vector<MoveRule>& move_filter() const { return filter_; }

  // Grows the tree until a limit is reached, then reports. Requires a
  // position. `stop` may be null; it is read, never written, and may be set
  // from any thread. Stops early when the root is proven or the memory cap
  // is reached (an unlimited search then still waits for *stop). Not
  // thread-safe otherwise: no other method may run concurrently.
  SearchResult Run(const SearchLimits& limits,
                   const ProgressCallback& progress = {},
                   const std::atomic<bool>* stop = nullptr);

  // ---- Results: results.cc ----

  // The report of the tree as it stands (what Run returns, without the
  // per-Run statistics). Const; not concurrently with a mutating method.
  SearchResult Report() const;
  // The move to play: SearchResult::best_move of the tree as it stands
  // (null before the root is expanded or when the game is over). Const.
  Move BestMove() const;
  // A root move drawn with probability proportional to visits^(1 /
  // temperature) (temperature <= 0: BestMove). A proven win is always
  // played; proven losses are drawn only when every move is one. Advances
  // the seeded generator. Not thread-safe.
  Move SampleMove(double temperature);
  // The same draw with `visits` (pairs of root moves and counts, such as
  // PrunedRootVisits()) in place of the tree's visit counts: moves that are
  // absent or have no count are never drawn (the best move is played when
  // nothing can be). Advances the seeded generator. Not thread-safe.
  Move SampleMoveFrom(std::span<const std::pair<Move, uint32_t>> visits,
                      double temperature);
  // Every legal root move with its visits, in legal-move order (training
  // targets). At a root proven won or lost, the best move (the soonest win,
  // the longest loss) holds all of its children's visits (at least 1, as
  // when the root was known before any child was visited) and the others
  // none: that is the move to learn. Empty before the root is expanded.
  // Const.
  std::vector<std::pair<Move, uint32_t>> RootVisits() const;
  // RootVisits() with policy target pruning (KataGo), for searches run with
  // forced playouts; equal to RootVisits() when forced_playouts_k is 0.
  // The most visited child c* and proven wins keep their visits. Every
  // other child c with prior P(c) loses up to floor(sqrt(k * P(c) * N))
  // visits (N: the visits of all root children), but only as many as keep
  // its PUCT value Q(c) + U(c) below that of c* (both with the root's cpuct
  // and N, c*'s own visits, c's reduced ones); a child left with one visit
  // or none is dropped (0). No count ever increases. Const.
  std::vector<std::pair<Move, uint32_t>> PrunedRootVisits() const;
  // With SearchParams::gumbel, after a Run: Gumbel AlphaZero's improved
  // policy softmax(logits + sigma(completed Q)) over every legal root move,
  // in legal-move order (the policy training target); empty otherwise or
  // before the root is expanded. Const.
  std::vector<std::pair<Move, float>> ImprovedRootPolicy() const;

  // ---- Inspection (inline) ----

  // The current root position (valid until the next SetPosition/Advance;
  // requires a position). Const.
  const GameState& root_state() const { return *root_state_; }
  // Read-only view of the tree for inspection (tests, front ends); null
  // before SetPosition. Valid until the tree changes. Const.
  const Node* root() const { return tree_.root(); }
  uint64_t tree_nodes() const { return tree_.nodes(); }
  uint64_t tree_bytes() const { return tree_.bytes(); }

 private:
  struct Slot;        // one leaf of a minibatch (search_internal.h)
  struct RunStats;    // counters of one Run (search_internal.h)
  struct Worker;      // one search thread's minibatch (search_internal.h)
  struct RunControl;  // what the threads of one Run share (search.cc)
  // What the prover showed at a new leaf (leaf_extension.cc).
  struct Tactics {
    // A move that wins (null: none), and in how many plies its child is
    // lost unless the game is over after it.
    Move decisive;
    int decisive_child_plies = 0;
    // How many legal moves allow the opponent a quick win (slot->allows_win
    // says which).
    int lost_moves = 0;
  };
  // A child edge chosen by the selection: its index and its child (null
  // if it has none yet).
  struct Selected {
    int edge;
    Node* child;
  };
  // How PickLeaf ended; kKnown: a proven (terminal or solved) leaf, backed
  // up with the batch without evaluation.
  enum class Pick { kLeaf, kKnown, kCollision, kMemoryFull };

  // ---- Life cycle and the Run loop: search.cc ----

  void InitRoot();
  void ApplyRootNoise();
  // root_search_depth: once per root, when it is expanded, raises the prior
  // of the root's best move by an alpha-beta search of that depth (within a
  // quarter of a timed Run's time).
  void ApplyRootSearch(const RunControl& control);
  // The depth of the root's own search: root_search_depth or the game's
  // choice; 0 without a heuristic or leaf_quiescence_weight.
  int RootSearchDepth() const;
  // root_veto_margin: after a Run whose first-ranked move an alpha-beta
  // search sees losing more than the margin against the root search's
  // move, sets root_choice_ to the next of the tree's best-ranked moves
  // that passes, or to the root search's move.
  void ApplyRootVeto(const RunControl& control);
  // The Run's time left for ApplyRootVeto (its tenth of a timed Run).
  int64_t RootVetoReserveMs(const SearchLimits& limits) const;
  // The loop of one search thread in Run: gather, evaluate (unlocked when
  // several threads run), back up, until a limit or another thread ends the
  // Run. Called with mutex_ held by `lock`; returns with it held.
  void RunWorker(Worker* worker, RunControl* control,
                 std::unique_lock<std::mutex>* lock);
  // The Run's counters in `r`.
  static void FillRunStats(const RunStats& stats,
                           std::chrono::steady_clock::time_point start,
                           SearchResult* r);
  // Fills the worker's slots with up to `budget` leaves, terminal and
  // proven ones included (they need no evaluation). Returns the playouts
  // started.
  int GatherMinibatch(Worker* worker, int budget);
  // Leaves to gather next: minibatch_size, or fewer while the tree is small
  // (minibatch_root_fraction of the root's visits, at least 1).
  uint64_t MinibatchBudget(uint32_t root_visits) const;
  // Whether the tree, the pending expansions and `extra_bytes` more would
  // pass the memory cap (ram_limit_mb; never without one).
  bool MemoryFull(uint64_t extra_bytes) const;
  // What a draw is worth to `side` (0 or 1) in this search: draw_score for
  // the root's side to move, draw_score_opponent for the other.
  double DrawScoreFor(int side) const;

  // ---- Selection: selection.cc ----

  // Descends from the root into `slot` (path and moves, one in-flight visit
  // on each node) until a proven node, a new leaf (handed to ExtendLeaf), a
  // collision or the memory cap.
  Pick PickLeaf(Worker* worker, Slot* slot);
  // The child edge of the visited, unproven `node` with the highest PUCT
  // score (virtual loss counted; children owed forced playouts first at the
  // root; unvisited children at the first-play urgency).
  Selected SelectPuct(Node* node, bool is_root);
  // The child Gumbel AlphaZero selects at `node`; the root's schedule
  // starts at its first selection of a Run.
  Selected SelectGumbel(Node* node, bool is_root);
  GumbelParams GumbelParamsOf(bool is_root) const;
  // What SearchParams::mlh_slope adds to the score of `node`'s visited
  // `child` whose utility for `node`'s side to move is `utility`.
  double MovesLeftBonus(const Node& node, const Node& child,
                        double utility) const;
  // The value given to `node`'s unvisited children: its own utility less
  // fpu_reduction (at the root fpu_reduction_at_root) * sqrt(prior mass of
  // its visited children).
  double FirstPlayUrgency(const Node& node, bool is_root, double draw_score,
                          double visited_policy) const;
  // Takes back the in-flight visits of `slot`'s path.
  void ReleasePath(const Slot& slot);
  // Takes back the in-flight visits that the worker's collisions left
  // (after its batch).
  void CancelCollisions(Worker* worker);

  // ---- Leaf extension: leaf_extension.cc ----

  // Finds out what the new leaf `node` at the end of `slot`'s path is: a
  // game end or repetition (kKnown), a win or loss the prover shows
  // (expanded as proven, kKnown), one over the memory cap (kMemoryFull), or
  // a leaf to evaluate (kLeaf: its state stays at the leaf, its legal moves
  // in the slot).
  Pick ExtendLeaf(Worker* worker, Slot* slot, Node* node);
  // The slot's state, played from the root to its leaf.
  GameState* PlayToLeaf(Slot* slot);
  // Takes the slot's state back to the root.
  void UndoToRoot(Slot* slot);
  // The proven value of a leaf where the game ends (over, a repetition with
  // two_fold_draws, no legal moves), else kNone with `legal` filled.
  Proven LeafEnd(const Node* node, const GameState& state,
                 MoveList* legal) const;
  // Applies the move filter to the leaf `state`, `depth` plies below the
  // root, whose legal moves are in slot->legal: sets slot->filtered and the
  // kept moves (Slot::ExpandMoves).
  void FilterMoves(const GameState& state, int depth, Slot* slot) const;
  // Asks the prover (if any, as far as the parameters allow) about the leaf
  // `state` whose moves to expand are slot->ExpandMoves(); fills
  // slot->allows_win (one entry per such move). A decisive move the filter
  // excludes is not used.
  Tactics ProbeTactics(const GameState& state, Slot* slot) const;
  // Evaluates the worker's pending leaves (not the proven ones) in one
  // Evaluator call. Reads only the worker's slots: runs without mutex_.
  // With a leaf search, the Evaluator call runs on a second thread while
  // this one scores the leaves.
  void EvaluateBatch(Worker* worker);
  // The quiescence W - L of the worker's pending leaves that go to the
  // evaluator, when leaf_quiescence_weight is on (EvaluateBatch).
  void ScoreQuiescence(Worker* worker);
  // Makes *search, or makes it anew when the leaves' quiescence parameters
  // changed: an alpha-beta search with the leaves' quiescence and a
  // transposition table of `hash_mb`.
  void MakeLeafAlphaBeta(int hash_mb,
                         std::unique_ptr<AlphaBetaSearch>* search) const;
  // The full-width plies of the leaves' alpha-beta search: the parameter,
  // or the game's choice when it is -1; 0 without the leaves' quiescence.
  int LeafSearchDepth() const;
  // Expands the worker's evaluated leaves and backs every pending leaf up
  // (proven ones with their exact values); the minibatch is then empty.
  void BackupBatch(Worker* worker);
  void Expand(Node* node, const MoveList& moves,
              const std::vector<float>& priors);
  // Expands `node` (the position of `state`, whose `legal` moves include
  // `move`) as a proven win: `move` wins at once (its child is the
  // terminal position) or forces a win (an unstoppable threat, a win in
  // five: its child is a proven loss in `child_loss_plies` plies, not
  // expanded). The other moves stay unvisited with prior 0. False (nothing
  // changed) if `move` does not in fact win.
  bool ExpandWon(Node* node, GameState* state, Move move, int child_loss_plies,
                 const MoveList& legal);
  // Gives each edge of the expanded `node` (the position of `state`) whose
  // move allows the opponent a quick win (allows_win[i] plies, 1 or 3) a
  // child proven won for the opponent in that many plies, and prior 0.
  void AddLostChildren(Node* node, GameState* state,
                       const std::vector<uint8_t>& allows_win);
  // Expands the leaf of `slot`, every move of which allows a quick win, as
  // a proven loss (in two or four plies). False if it was not proven.
  bool ExpandLost(Node* node, GameState* state, const Slot* slot);
  // Scales the priors of an expanded node to sum to 1 (if any is positive).
  void NormalizePriors(Node* node);
  // Moves `share` of the expanded `node`'s priors to `move`, the move its
  // quiescence or its root search was best with (none when null, not an
  // edge, or at prior 0).
  void RaiseQuiescencePrior(Node* node, Move move, double share);

  // ---- Backup: backup.cc ----

  // Adds one visit of value (wl, d), seen from `side`, and of `plies_left`
  // at the leaf (plus one per ply above it) to every node of `path` (root
  // first), removing its in-flight count; then propagates proven values
  // upwards from the end of the path if `leaf_proven_now`.
  void Backup(std::span<Node* const> path, double wl, double d,
              double plies_left, int side, bool leaf_proven_now,
              RunStats* stats);
  // Whether `node` is now proven from its children; sets it if so.
  bool UpdateProven(Node* node);
  // Sets the leaf's minimax (Node::minimax) to `leaf_wl` (its exact value
  // if proven), from its side to move's point of view, and recomputes the
  // nodes above it on `path`.
  void UpdateMinimax(std::span<Node* const> path, double leaf_wl);

  // ---- Results: results.cc ----

  SearchResult BuildResult() const;
  // The edge index Gumbel chooses at the root after a Run, or -1 (not a
  // Gumbel search, no Run since the root changed, or the root is proven).
  int GumbelChoice() const;
  // SampleMove over `counts` (one per root edge) instead of visits.
  Move SampleByCounts(const std::vector<uint32_t>& counts, double temperature);
  // `node`'s plies to the end: exact when proven, else its mean Node::m.
  static float MovesLeft(const Node& node);
  // `first` (a root move) and then, from `child` (its child, may be null),
  // the best-ranked visited children below it.
  std::vector<Move> PrincipalVariation(Move first, const Node* child) const;

  SearchParams params_;
  nn::Evaluator* evaluator_;
  const Prover* prover_;                  // may be null
  const Heuristic* heuristic_ = nullptr;  // may be null
  Rng rng_;
  Tree tree_;
  // Where SetPosition started, and the moves played since (tree reuse).
  std::unique_ptr<GameState> start_state_;
  std::vector<Move> moves_from_start_;
  std::unique_ptr<GameState> root_state_;
  bool root_noise_applied_ = false;
  bool root_search_applied_ = false;
  std::unique_ptr<AlphaBetaSearch> root_search_;  // made on first use
  // The root search's answer for this root (null move: none yet).
  Move root_search_move_;
  int root_search_score_ = 0;
  int root_search_depth_done_ = 0;
  // root_veto_margin's choice after the last Run, played instead of the
  // tree's first-ranked move (null: the tree's own).
  Move root_choice_;
  // Gumbel: the root's schedule in this Run, and the Run's budget.
  GumbelRoot gumbel_root_;
  int gumbel_budget_ = 0;
  bool memory_full_ = false;
  // An evaluation came with moves left (the net has the head): MLH may act.
  bool moves_left_seen_ = false;
  std::vector<MoveRule> filter_;  // SetMoveFilter

  // One per search thread (workers_[0] runs on Run's caller), kept from Run
  // to Run. During a Run with several threads, mutex_ guards the tree, the
  // fields above and the workers (except as Worker says).
  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex mutex_;
  uint64_t pending_bytes_ = 0;     // all workers' pending_bytes
  uint64_t pending_playouts_ = 0;  // all workers' pending leaves
};

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_SEARCH_H_
