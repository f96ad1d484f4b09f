// The search's life cycle (construction, positions, tree reuse, root noise)
// and the Run loop: gather a minibatch of leaves, evaluate and back it up,
// until a limit is reached. The other groups of methods are in the files that
// search.h names.
#include "engine/search/search.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <system_error>
#include <thread>

#include "engine/search/search_internal.h"
#include "engine/util/strings.h"

namespace volkhv::search {
namespace {

// The root simulations Sequential Halving plans for in one Run: the visits
// still to reach, else the node limit, else `unlimited`.
int GumbelBudget(const SearchLimits& limits, uint32_t root_visits,
                 int unlimited) {
  uint64_t budget = unlimited;
  if (!limits.infinite && limits.visits > 0) {
    // The root's own first evaluation is not a simulation of a child.
    const uint64_t done = std::max<uint64_t>(root_visits, 1);
    budget = limits.visits > done ? limits.visits - done : 1;
  } else if (!limits.infinite && limits.nodes > 0) {
    budget = limits.nodes;
  }
  return static_cast<int>(std::min<uint64_t>(budget, 1 << 24));
}

}  // namespace

Search::Search(const SearchParams& params, nn::Evaluator* evaluator,
               const Prover* prover, uint64_t seed)
    : params_(params), evaluator_(evaluator), prover_(prover), rng_(seed) {
  workers_.push_back(std::make_unique<Worker>());
}

Search::~Search() = default;

void Search::SetParams(const SearchParams& params) { params_ = params; }

absl::Status Search::SetPosition(const GameState& start,
                                 std::span<const Move> moves) {
  gumbel_root_.Reset();
  std::unique_ptr<GameState> root_state = start.Clone();
  MoveList legal;
  for (size_t i = 0; i < moves.size(); ++i) {
    root_state->LegalMoves(&legal);
    if (!legal.contains(moves[i])) {
      return absl::InvalidArgumentError(
          Cat("SetPosition: move ", i + 1, " is not legal"));
    }
    root_state->Play(moves[i]);
  }
  const bool same_start = start_state_ != nullptr && tree_.root() != nullptr &&
                          start_state_->PliesPlayed() == start.PliesPlayed() &&
                          start_state_->Hash() == start.Hash() &&
                          start_state_->PositionText() == start.PositionText();
  const bool extends = same_start && moves_from_start_.size() <= moves.size() &&
                       std::equal(moves_from_start_.begin(),
                                  moves_from_start_.end(), moves.begin());
  const bool same_root = extends && moves_from_start_.size() == moves.size();
  const bool filtered = !filter_.empty();
  if (!same_root) filter_.clear();
  if (!extends || (!same_root && filtered)) {
    tree_.Reset();
  } else if (!same_root) {
    tree_.Descend(moves.subspan(moves_from_start_.size()));
  }
  if (!same_root) {
    root_noise_applied_ = root_search_applied_ = false;
    root_choice_ = Move{};
  }
  start_state_ = start.Clone();
  moves_from_start_.assign(moves.begin(), moves.end());
  root_state_ = std::move(root_state);
  for (auto& worker : workers_) {
    for (auto& slot : worker->slots) slot->in_sync = false;
  }
  InitRoot();
  return absl::OkStatus();
}

absl::Status Search::Advance(Move move) {
  gumbel_root_.Reset();
  if (root_state_ == nullptr) {
    return absl::FailedPreconditionError("Advance: no position set");
  }
  MoveList legal;
  root_state_->LegalMoves(&legal);
  if (!legal.contains(move)) {
    return absl::InvalidArgumentError("Advance: the move is not legal");
  }
  const Move moves[1] = {move};
  if (filter_.empty()) {
    tree_.Descend(moves);
  } else {
    filter_.clear();
    tree_.Reset();
  }
  root_state_->Play(move);
  moves_from_start_.push_back(move);
  for (auto& worker : workers_) {
    for (auto& slot : worker->slots) {
      if (slot->in_sync) slot->state->Play(move);
    }
  }
  root_noise_applied_ = root_search_applied_ = false;
  root_choice_ = Move{};
  InitRoot();
  return absl::OkStatus();
}

void Search::ClearTree() {
  gumbel_root_.Reset();
  tree_.Reset();
  root_noise_applied_ = root_search_applied_ = false;
  root_choice_ = Move{};
  if (root_state_ != nullptr) InitRoot();
}

void Search::SetMoveFilter(std::vector<MoveRule> rules) {
  if (rules == filter_) return;
  filter_ = std::move(rules);
  ClearTree();
}

void Search::InitRoot() {
  Node* root = tree_.root();
  if (root->terminal && !root_state_->Result().IsOver()) {
    // A repetition the search scored as a draw (two_fold_draws) has been
    // played: the game goes on from here.
    *root = Node();
  }
  if (root->proven() != Proven::kNone && !root->terminal && !root->expanded()) {
    // Proven from its parent (a move that allows an immediate win, or an
    // unstoppable threat) but never expanded: the root needs its moves.
    *root = Node();
  }
  if (root->n > 0 || root->terminal) return;  // kept from the last search
  root->side_to_move = root_state_->SideToMove() & 1;
  const GameResult result = root_state_->Result();
  if (result.IsOver()) {
    root->terminal = 1;
    SetProven(root, ProvenOf(result.outcome), 0);
  }
}

void Search::ApplyRootNoise() {
  Node* root = tree_.root();
  if (!params_.root_noise || params_.gumbel || root_noise_applied_ ||
      !root->expanded()) {
    return;
  }
  root_noise_applied_ = true;
  std::vector<float> noise(root->num_edges);
  rng_.Dirichlet(params_.dirichlet_alpha_factor / root->num_edges, noise);
  const float eps = static_cast<float>(params_.dirichlet_epsilon);
  ChildWalk walk(*root);
  for (int i = 0; i < root->num_edges; ++i) {
    Edge& edge = root->edges[i];
    // A move already known to lose keeps its prior 0: noise would only buy
    // it visits that back up a known value.
    const Node* child = walk.At(i);
    if (child != nullptr &&
        child->ProvenFor(root->side_to_move) == Proven::kLoss) {
      continue;
    }
    edge.prior = (1 - eps) * edge.prior + eps * noise[i];
  }
}

uint64_t Search::MinibatchBudget(uint32_t root_visits) const {
  if (params_.minibatch_root_fraction <= 0) return params_.minibatch_size;
  const double grown = std::floor(params_.minibatch_root_fraction *
                                  static_cast<double>(root_visits));
  return static_cast<uint64_t>(
      std::clamp(grown, 1.0, static_cast<double>(params_.minibatch_size)));
}

double Search::DrawScoreFor(int side) const {
  return side == tree_.root()->side_to_move ? params_.draw_score
                                            : params_.draw_score_opponent;
}

bool Search::MemoryFull(uint64_t extra_bytes) const {
  if (params_.ram_limit_mb <= 0) return false;
  const double cap = params_.ram_limit_mb * 1024 * 1024;
  return static_cast<double>(tree_.bytes() + pending_bytes_ + extra_bytes) >
         cap;
}

// What the threads of one Run share, guarded by mutex_.
struct Search::RunControl {
  SearchLimits limits;
  bool limited = false;
  const std::atomic<bool>* stop = nullptr;
  const ProgressCallback* progress = nullptr;
  Clock::time_point start;
  Clock::time_point last_progress;
  bool unlocked_evaluation = false;  // several threads
  bool done = false;                 // a thread ended the Run for all
  StopReason reason = StopReason::kStopped;
  uint64_t playouts = 0;   // backed up in this Run, all threads
  uint64_t depth_sum = 0;  // their depths (SearchLimits::depth)
};

void Search::ApplyRootSearch(const RunControl& control) {
  Node* root = tree_.root();
  const int depth = RootSearchDepth();
  if (depth <= 0 || root_search_applied_ || !root->expanded() ||
      root->proven() != Proven::kNone) {
    return;
  }
  root_search_applied_ = true;
  MakeLeafAlphaBeta(AlphaBetaOptions().hash_mb, &root_search_);
  AlphaBetaLimits limits;
  limits.depth = depth;
  // A timed search gives the root's search a quarter of its time at most
  // (the first ply is always searched).
  if (control.limits.time_ms > 0) {
    limits.time_ms = std::max<int64_t>(1, control.limits.time_ms / 4);
  }
  const AlphaBetaResult result =
      root_search_->Search(*root_state_, limits, control.stop);
  root_search_move_ = result.best_move;
  root_search_score_ = result.score;
  root_search_depth_done_ = result.depth;
  RaiseQuiescencePrior(root, result.best_move,
                       params_.root_search_prior >= 0
                           ? params_.root_search_prior
                           : params_.leaf_quiescence_prior);
}

int Search::RootSearchDepth() const {
  if (heuristic_ == nullptr || params_.leaf_quiescence_weight <= 0) return 0;
  return params_.root_search_depth >= 0 ? params_.root_search_depth
                                        : heuristic_->RootSearchDepth();
}

int64_t Search::RootVetoReserveMs(const SearchLimits& limits) const {
  if (params_.root_veto_margin <= 0 || RootSearchDepth() < 2 ||
      limits.infinite || limits.time_ms <= 0) {
    return 0;
  }
  return limits.time_ms / 10;
}

void Search::ApplyRootVeto(const RunControl& control) {
  root_choice_ = Move{};
  const Node* root = tree_.root();
  // The child's search is one ply shallower than the root's: it needs two.
  if (params_.root_veto_margin <= 0 || !root_search_applied_ ||
      root_search_move_.IsNull() || root_search_depth_done_ < 2 ||
      !root->expanded() || root->proven() != Proven::kNone ||
      GumbelChoice() >= 0 || !filter_.empty()) {
    return;
  }
  const int64_t deadline_ms =
      control.limits.time_ms > 0 && !control.limits.infinite
          ? control.limits.time_ms
          : 0;
  // The first of the tree's best-ranked visited moves that passes the
  // check; once one is turned down, the root search's own move ends the
  // list (it needs no check), and is the choice if none before it passes.
  constexpr int kMostChecked = 3;
  int checked = 0;
  bool vetoed = false;
  for (const MoveInfo& info : BuildResult().moves) {
    if (info.move == root_search_move_) break;
    // Proven by the tree: exact, better than any search's.
    if (info.proven != Proven::kNone) {
      if (!vetoed) return;
      continue;
    }
    if (info.visits == 0 || checked == kMostChecked) break;
    AlphaBetaLimits limits;
    limits.depth = root_search_depth_done_ - 1;
    if (deadline_ms > 0) {
      limits.time_ms = deadline_ms -
                       static_cast<int64_t>(SecondsSince(control.start) * 1000);
      if (limits.time_ms <= 0) break;  // no time left to check
    }
    ++checked;
    std::unique_ptr<GameState> child = root_state_->Clone();
    child->Play(info.move);
    if (child->Result().IsOver()) {  // the tree knows it exactly
      if (!vetoed) return;
      continue;
    }
    // Not stopped by the stop flag, which ends an infinite Run before the
    // checks: a check takes a few milliseconds.
    const AlphaBetaResult result = root_search_->Search(*child, limits);
    if (result.depth < limits.depth && result.MatePlies() == 0) break;
    if (-result.score >= root_search_score_ - params_.root_veto_margin) {
      if (vetoed) root_choice_ = info.move;
      return;
    }
    vetoed = true;
  }
  // An unfinished check says nothing: without a move turned down, the
  // tree's choice stands.
  if (vetoed) root_choice_ = root_search_move_;
}

SearchResult Search::Run(const SearchLimits& limits,
                         const ProgressCallback& progress,
                         const std::atomic<bool>* stop) {
  Node* const root = tree_.root();
  assert(root != nullptr && "Run needs SetPosition first");
  if (root == nullptr) return {};
  RunControl control;
  control.limits = limits;
  control.limited =
      !limits.infinite && (limits.visits > 0 || limits.nodes > 0 ||
                           limits.time_ms > 0 || limits.depth > 0);
  control.stop = stop;
  control.progress = &progress;
  control.start = Clock::now();
  control.last_progress = control.start;
  memory_full_ = false;
  root_choice_ = Move{};
  gumbel_root_.Reset();
  gumbel_budget_ = GumbelBudget(limits, root->n, params_.gumbel_budget);
  const size_t threads =
      static_cast<size_t>(std::max(params_.search_threads, 1));
  while (workers_.size() < threads) {
    workers_.push_back(std::make_unique<Worker>());
  }
  for (auto& worker : workers_) worker->stats = RunStats();
  control.unlocked_evaluation = threads > 1;

  std::vector<std::thread> helpers;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    for (size_t i = 1; i < threads; ++i) {
      Worker* worker = workers_[i].get();
      try {
        helpers.emplace_back([this, worker, &control] {
          std::unique_lock<std::mutex> helper_lock(mutex_);
          RunWorker(worker, &control, &helper_lock);
        });
      } catch (const std::system_error&) {
        break;  // no more threads to be had: search with those running
      }
    }
    RunWorker(workers_[0].get(), &control, &lock);
  }
  for (std::thread& helper : helpers) helper.join();
  if (!control.done) {
    // Every thread left because the leaves in flight reached a limit.
    control.reason = limits.visits > 0 && root->n >= limits.visits
                         ? StopReason::kVisits
                         : StopReason::kNodes;
  }

  // An infinite search answers only when told to stop, even if it has
  // nothing left to learn; one for a mate returns when it has found it.
  const bool mate_found = !limits.infinite && limits.mate_plies > 0 &&
                          root->proven() == Proven::kWin &&
                          root->proven_plies <= limits.mate_plies;
  if (!control.limited && stop != nullptr && !mate_found) {
    while (!stop->load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ApplyRootVeto(control);
  RunStats stats;
  for (const auto& worker : workers_) stats.Add(worker->stats);
  SearchResult result = BuildResult();
  FillRunStats(stats, control.start, &result);
  result.stop_reason = control.reason;
  return result;
}

void Search::RunWorker(Worker* worker, RunControl* control,
                       std::unique_lock<std::mutex>* lock) {
  Node* const root = tree_.root();
  const SearchLimits& limits = control->limits;
  // Ends the Run for every thread.
  auto end_run = [control](StopReason reason) {
    if (!control->done) control->reason = reason;
    control->done = true;
  };
  while (!control->done) {
    if (root->terminal) {
      end_run(StopReason::kGameOver);
      break;
    }
    ApplyRootNoise();
    ApplyRootSearch(*control);
    if (control->stop != nullptr &&
        control->stop->load(std::memory_order_relaxed)) {
      end_run(StopReason::kStopped);
      break;
    }
    if (root->proven() != Proven::kNone) {
      end_run(StopReason::kProven);
      break;
    }
    if (memory_full_) {
      end_run(StopReason::kMemory);
      break;
    }
    uint64_t budget = MinibatchBudget(root->n);
    if (control->limited) {
      // Leaves other threads are evaluating count as started.
      if (limits.visits > 0) {
        if (root->n >= limits.visits) {
          end_run(StopReason::kVisits);
          break;
        }
        const uint64_t started = root->n + pending_playouts_;
        // The other threads' pending leaves reach the limit.
        if (started >= limits.visits) break;
        budget = std::min<uint64_t>(budget, limits.visits - started);
      }
      if (limits.nodes > 0) {
        if (control->playouts >= limits.nodes) {
          end_run(StopReason::kNodes);
          break;
        }
        const uint64_t started = control->playouts + pending_playouts_;
        if (started >= limits.nodes) break;
        budget = std::min<uint64_t>(budget, limits.nodes - started);
      }
      if (limits.time_ms > 0 &&
          SecondsSince(control->start) * 1000 >=
              static_cast<double>(limits.time_ms - RootVetoReserveMs(limits))) {
        end_run(StopReason::kTime);
        break;
      }
      if (limits.depth > 0 && control->playouts > 0 &&
          std::max<int64_t>(1, std::llround(double(control->depth_sum) /
                                            control->playouts)) >=
              limits.depth) {
        end_run(StopReason::kDepth);
        break;
      }
    }
    GatherMinibatch(worker, static_cast<int>(budget));
    if (control->unlocked_evaluation) {
      lock->unlock();
      EvaluateBatch(worker);
      lock->lock();
    } else {
      EvaluateBatch(worker);
    }
    const uint64_t before = worker->stats.playouts;
    const uint64_t depth_before = worker->stats.depth_sum;
    BackupBatch(worker);
    control->playouts += worker->stats.playouts - before;
    control->depth_sum += worker->stats.depth_sum - depth_before;
    CancelCollisions(worker);
    if (worker == workers_[0].get() && *control->progress &&
        Clock::now() - control->last_progress >=
            std::chrono::milliseconds(limits.progress_interval_ms)) {
      control->last_progress = Clock::now();
      RunStats stats;
      for (const auto& w : workers_) stats.Add(w->stats);
      SearchResult snapshot = BuildResult();
      FillRunStats(stats, control->start, &snapshot);
      (*control->progress)(snapshot);
    }
  }
}

void Search::FillRunStats(const RunStats& stats, Clock::time_point start,
                          SearchResult* r) {
  r->playouts = stats.playouts;
  r->evaluations = stats.evaluations;
  r->batches = stats.batches;
  r->eval_seconds = stats.eval_seconds;
  r->elapsed_seconds = SecondsSince(start);
  r->playouts_per_second =
      r->elapsed_seconds > 0 ? stats.playouts / r->elapsed_seconds : 0;
  r->average_depth =
      stats.playouts > 0 ? double(stats.depth_sum) / stats.playouts : 0;
  r->max_depth = stats.max_depth;
}

int Search::GatherMinibatch(Worker* worker, int budget) {
  worker->num_pending = 0;
  worker->pending_bytes = 0;
  worker->collisions = 0;
  worker->collided.clear();
  int done = 0;
  while (done < budget) {
    if (worker->num_pending == static_cast<int>(worker->slots.size())) {
      worker->slots.push_back(std::make_unique<Slot>());
    }
    Slot* slot = worker->slots[worker->num_pending].get();
    switch (PickLeaf(worker, slot)) {
      case Pick::kLeaf:
      case Pick::kKnown:
        ++worker->num_pending;
        ++pending_playouts_;
        ++done;
        break;
      case Pick::kCollision:
        // At the root (its own first evaluation pending) nothing else can
        // be found; elsewhere give the virtual loss a few chances.
        if (slot->path.empty() ||
            ++worker->collisions > params_.max_collisions) {
          return done;
        }
        break;
      case Pick::kMemoryFull:
        memory_full_ = true;
        return done;
    }
  }
  return done;
}

}  // namespace volkhv::search
