#include "engine/search/search.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <climits>
#include <cmath>
#include <thread>

#include "engine/game/strings.h"

namespace volkhv::search {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Proven ProvenOf(Outcome outcome) {
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
double ExactWl(Proven p) {
  return p == Proven::kWin ? 1.0 : p == Proven::kLoss ? -1.0 : 0.0;
}
double ExactD(Proven p) { return p == Proven::kDraw ? 1.0 : 0.0; }

void SetProven(Node* node, Proven p, int plies) {
  node->set_proven(p);
  node->proven_plies = static_cast<uint8_t>(std::min(plies, 255));
  node->wl = ExactWl(p);
  node->d = static_cast<float>(ExactD(p));
}

// Move-choice order among the children of a node whose side to move is
// `side`: proven wins (fewest plies first), then unproven and drawn moves
// (most visits, then Q with draws worth `draw_score`, then prior), then proven
// losses (most plies first). Returns true if `a` ranks strictly before `b`.
bool RanksBefore(const Edge& a, const Edge& b, int side, double draw_score) {
  auto category = [side](const Edge& e) {
    if (e.child == nullptr) return 1;
    const Proven p = e.child->ProvenFor(side);
    return p == Proven::kWin ? 0 : p == Proven::kLoss ? 2 : 1;
  };
  const int ca = category(a);
  const int cb = category(b);
  if (ca != cb) return ca < cb;
  if (ca == 0 && a.child->proven_plies != b.child->proven_plies) {
    return a.child->proven_plies < b.child->proven_plies;
  }
  if (ca == 2 && a.child->proven_plies != b.child->proven_plies) {
    return a.child->proven_plies > b.child->proven_plies;
  }
  const uint32_t na = a.child ? a.child->n : 0;
  const uint32_t nb = b.child ? b.child->n : 0;
  if (na != nb) return na > nb;
  if (na > 0) {
    const double qa = a.child->UtilityFor(side, draw_score);
    const double qb = b.child->UtilityFor(side, draw_score);
    if (qa != qb) return qa > qb;
  }
  return a.prior > b.prior;
}

// The first best-ranked child edge, or null for a node without children.
// `draw_score`: what a draw is worth to the node's side to move.
const Edge* BestEdge(const Node* node, double draw_score) {
  const Edge* best = nullptr;
  for (const Edge& edge : node->children()) {
    if (best == nullptr ||
        RanksBefore(edge, *best, node->side_to_move, draw_score)) {
      best = &edge;
    }
  }
  return best;
}

// PUCT's exploration factor cpuct(n) * sqrt(children) of a node with `n`
// visits whose children have `children` visits (started ones included).
double PuctMultiplier(const SearchParams& params, uint32_t n,
                      int64_t children) {
  const double cpuct = params.cpuct_init +
                       params.cpuct_factor * std::log((n + params.cpuct_base) /
                                                      params.cpuct_base);
  return cpuct * std::sqrt(static_cast<double>(std::max<int64_t>(children, 1)));
}

// The selection score of a root child owed forced playouts: above any PUCT
// value.
constexpr double kForcedScore = 1e20;

void FillWdl(double wl, double d, float wdl[3]) {
  wdl[0] = static_cast<float>((1 + wl - d) / 2);
  wdl[1] = static_cast<float>(d);
  wdl[2] = static_cast<float>((1 - wl - d) / 2);
}

}  // namespace

std::string_view StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kVisits:
      return "visits";
    case StopReason::kNodes:
      return "nodes";
    case StopReason::kTime:
      return "time";
    case StopReason::kStopped:
      return "stopped";
    case StopReason::kProven:
      return "proven";
    case StopReason::kMemory:
      return "memory";
    case StopReason::kGameOver:
      return "game over";
  }
  return "?";
}

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

// One leaf of a minibatch: its path from the root and a copy of the game
// played along it. The state is at the root between minibatches.
struct Search::Slot {
  std::unique_ptr<GameState> state;
  bool in_sync = false;     // state is a copy of root_state_
  std::vector<Node*> path;  // root first
  std::vector<Move> moves;  // path.size() - 1 moves
  MoveList legal;           // the leaf's legal moves
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
};

Search::Search(const SearchParams& params, nn::Evaluator* evaluator,
               const Prover* prover, uint64_t seed)
    : params_(params), evaluator_(evaluator), prover_(prover), rng_(seed) {}

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
  if (!extends) {
    tree_.Reset();
  } else if (!same_root) {
    tree_.Descend(moves.subspan(moves_from_start_.size()));
  }
  if (!same_root) root_noise_applied_ = false;
  start_state_ = start.Clone();
  moves_from_start_.assign(moves.begin(), moves.end());
  root_state_ = std::move(root_state);
  for (auto& slot : slots_) slot->in_sync = false;
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
  tree_.Descend(moves);
  root_state_->Play(move);
  moves_from_start_.push_back(move);
  for (auto& slot : slots_) {
    if (slot->in_sync) slot->state->Play(move);
  }
  root_noise_applied_ = false;
  InitRoot();
  return absl::OkStatus();
}

void Search::ClearTree() {
  gumbel_root_.Reset();
  tree_.Reset();
  root_noise_applied_ = false;
  if (root_state_ != nullptr) InitRoot();
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
  for (int i = 0; i < root->num_edges; ++i) {
    Edge& edge = root->edges[i];
    // A move already known to lose keeps its prior 0: noise would only buy
    // it visits that back up a known value.
    if (edge.child != nullptr &&
        edge.child->ProvenFor(root->side_to_move) == Proven::kLoss) {
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

SearchResult Search::Run(const SearchLimits& limits,
                         const ProgressCallback& progress,
                         const std::atomic<bool>* stop) {
  const Clock::time_point start = Clock::now();
  Clock::time_point last_progress = start;
  RunStats stats;
  StopReason reason = StopReason::kStopped;
  memory_full_ = false;
  Node* const root = tree_.root();
  assert(root != nullptr && "Run needs SetPosition first");
  if (root == nullptr) return {};
  const bool limited =
      !limits.infinite &&
      (limits.visits > 0 || limits.nodes > 0 || limits.time_ms > 0);
  gumbel_root_.Reset();
  gumbel_budget_ = GumbelBudget(limits, root->n, params_.gumbel_budget);
  auto fill_stats = [&](SearchResult* r) {
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
  };

  for (;;) {
    if (root->terminal) {
      reason = StopReason::kGameOver;
      break;
    }
    ApplyRootNoise();
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
      reason = StopReason::kStopped;
      break;
    }
    if (root->proven() != Proven::kNone) {
      reason = StopReason::kProven;
      break;
    }
    if (memory_full_) {
      reason = StopReason::kMemory;
      break;
    }
    uint64_t budget = MinibatchBudget(root->n);
    if (limited) {
      if (limits.visits > 0) {
        if (root->n >= limits.visits) {
          reason = StopReason::kVisits;
          break;
        }
        budget = std::min<uint64_t>(budget, limits.visits - root->n);
      }
      if (limits.nodes > 0) {
        if (stats.playouts >= limits.nodes) {
          reason = StopReason::kNodes;
          break;
        }
        budget = std::min<uint64_t>(budget, limits.nodes - stats.playouts);
      }
      if (limits.time_ms > 0 &&
          SecondsSince(start) * 1000 >= static_cast<double>(limits.time_ms)) {
        reason = StopReason::kTime;
        break;
      }
    }
    GatherMinibatch(static_cast<int>(budget));
    EvaluateAndBackup(&stats);
    CancelCollisions();
    if (progress &&
        Clock::now() - last_progress >=
            std::chrono::milliseconds(limits.progress_interval_ms)) {
      last_progress = Clock::now();
      SearchResult snapshot = BuildResult();
      fill_stats(&snapshot);
      progress(snapshot);
    }
  }
  // An infinite search answers only when told to stop, even if it has
  // nothing left to learn.
  if (!limited && stop != nullptr) {
    while (!stop->load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  SearchResult result = BuildResult();
  fill_stats(&result);
  result.stop_reason = reason;
  return result;
}

int Search::GatherMinibatch(int budget) {
  num_pending_ = 0;
  pending_bytes_ = 0;
  collisions_ = 0;
  collided_.clear();
  int done = 0;
  while (done < budget) {
    if (num_pending_ == static_cast<int>(slots_.size())) {
      slots_.push_back(std::make_unique<Slot>());
    }
    Slot* slot = slots_[num_pending_].get();
    switch (PickLeaf(slot)) {
      case Pick::kLeaf:
        ++num_pending_;
        ++done;
        break;
      case Pick::kKnown:
        ++num_pending_;
        ++done;
        break;
      case Pick::kCollision:
        // At the root (its own first evaluation pending) nothing else can
        // be found; elsewhere give the virtual loss a few chances.
        if (slot->path.empty() || ++collisions_ > params_.max_collisions) {
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

Search::Pick Search::PickLeaf(Slot* slot) {
  slot->path.clear();
  slot->moves.clear();
  slot->known = false;
  slot->proven_now = false;
  Node* const root = tree_.root();
  Node* node = root;
  for (;;) {
    if (node->n == 0 && node->in_flight > 0) {
      // Already waiting for its evaluation: keep the in-flight counts of
      // the path (they steer the next selections elsewhere) until the
      // minibatch is backed up.
      collided_.insert(collided_.end(), slot->path.begin(), slot->path.end());
      return Pick::kCollision;
    }
    slot->path.push_back(node);
    ++node->in_flight;
    if (node->proven() != Proven::kNone) {
      slot->known = true;
      return Pick::kKnown;
    }
    if (node->n == 0) break;  // a new leaf

    const bool is_root = node == root;
    Edge* best = params_.gumbel ? SelectGumbel(node, is_root)
                                : SelectPuct(node, is_root);
    if (best->child == nullptr) {
      if (MemoryFull(sizeof(Node))) {
        for (Node* n : slot->path) --n->in_flight;
        return Pick::kMemoryFull;
      }
      best->child = tree_.NewNode();
    }
    slot->moves.push_back(best->move);
    node = best->child;
  }

  // A node visited for the first time: find out what it is.
  if (!slot->in_sync) {
    slot->state = root_state_->Clone();
    slot->in_sync = true;
  }
  GameState* state = slot->state.get();
  for (Move move : slot->moves) state->Play(move);
  auto undo = [&] {
    for (size_t i = 0; i < slot->moves.size(); ++i) state->Undo();
  };
  node->side_to_move = state->SideToMove() & 1;
  const GameResult result = state->Result();
  if (result.IsOver()) {
    undo();
    node->terminal = 1;
    SetProven(node, ProvenOf(result.outcome), 0);
    slot->known = slot->proven_now = true;
    return Pick::kKnown;
  }
  if (params_.two_fold_draws && node != root && state->Occurrences() >= 2) {
    undo();
    node->terminal = 1;
    SetProven(node, Proven::kDraw, 0);
    slot->known = slot->proven_now = true;
    return Pick::kKnown;
  }
  state->LegalMoves(&slot->legal);
  assert(!slot->legal.empty() && "an ongoing game has legal moves");
  if (slot->legal.empty()) {  // the game broke its contract: call it a draw
    undo();
    node->terminal = 1;
    SetProven(node, Proven::kDraw, 0);
    slot->known = slot->proven_now = true;
    return Pick::kKnown;
  }
  // A decisive move, and in how many plies its child loses unless over.
  const Prover* prover = prover_;
  Move decisive = prover != nullptr && params_.immediate_wins
                      ? prover->ImmediateWin(*state)
                      : Move{};
  int decisive_child_plies = 0;
  if (prover != nullptr && decisive.IsNull() && params_.unstoppable_threats) {
    decisive = prover->UnstoppableThreat(*state);
    decisive_child_plies = 2;
    if (decisive.IsNull() && params_.wins_in_five) {
      decisive = prover->WinInFive(*state);
      decisive_child_plies = 4;
    }
  }
  int lost_moves = 0;
  slot->allows_win.clear();
  if (prover != nullptr && decisive.IsNull() &&
      params_.avoid_immediate_losses) {
    lost_moves = prover->MovesAllowingQuickWin(
        *state, slot->legal, params_.avoid_unstoppable_threats,
        &slot->allows_win);
    if (lost_moves == 0) slot->allows_win.clear();
  }
  const uint64_t expansion =
      Tree::ExpansionBytes(slot->legal.size()) +
      sizeof(Node) * static_cast<uint64_t>(decisive.IsNull() ? lost_moves : 1);
  if (node != root && MemoryFull(expansion)) {
    undo();
    for (Node* n : slot->path) --n->in_flight;
    return Pick::kMemoryFull;
  }
  const bool known =
      decisive.IsNull()
          ? lost_moves == slot->legal.size() && ExpandLost(node, state, slot)
          : ExpandWon(node, state, decisive, decisive_child_plies, slot->legal);
  if (known) {
    undo();
    slot->known = slot->proven_now = true;
    return Pick::kKnown;
  }
  pending_bytes_ += expansion;
  return Pick::kLeaf;  // the state stays at the leaf until it is evaluated
}

Edge* Search::SelectPuct(Node* node, bool is_root) {
  const double vl = params_.virtual_loss;
  const int side = node->side_to_move;
  const double draw_score = DrawScoreFor(side);
  const int64_t children_started =
      int64_t{node->n} - 1 + int64_t{node->in_flight} - 1;
  const double puct_mult = PuctMultiplier(params_, node->n, children_started);
  // Forced playouts: k * total child visits; a child is owed visits while
  // its started visits are below sqrt(this * prior).
  const double forced_base =
      is_root && params_.forced_playouts_k > 0
          ? params_.forced_playouts_k *
                static_cast<double>(std::max<int64_t>(children_started, 0))
          : 0;
  // One pass (each child is a likely cache miss): children with visits
  // are scored as they come; the unstarted ones all share the FPU value,
  // so the best of them is simply the first with the highest prior.
  double visited_policy = 0;
  Edge* best_started = nullptr;
  double best_started_score = -1e300;
  Edge* best_fresh = nullptr;
  float best_fresh_prior = -1;
  for (Edge& edge : node->children()) {
    const Node* child = edge.child;
    if (child == nullptr || child->n + child->in_flight == 0) {
      if (edge.prior > best_fresh_prior) {
        best_fresh_prior = edge.prior;
        best_fresh = &edge;
      }
      continue;
    }
    if (child->n > 0) visited_policy += edge.prior;
    const double started = double(child->n) + child->in_flight;
    const double q = (child->UtilityFor(side, draw_score) * child->n -
                      vl * child->in_flight) /
                     started;
    double score = q + puct_mult * edge.prior / (1 + started);
    // Only children with a completed visit are forced (forcing one whose
    // first visit is still in flight would only collide), and never a
    // proven one (its value is exact).
    if (forced_base > 0 && child->n > 0 && child->proven() == Proven::kNone &&
        started < std::sqrt(forced_base * edge.prior)) {
      score = kForcedScore;
    }
    if (score > best_started_score) {
      best_started_score = score;
      best_started = &edge;
    }
  }
  Edge* best = best_started;
  if (best_fresh != nullptr) {
    const double fpu =
        node->UtilityFor(side, draw_score) -
        (is_root ? params_.fpu_reduction_at_root : params_.fpu_reduction) *
            std::sqrt(visited_policy);
    const double fresh_score = fpu + puct_mult * best_fresh_prior;
    // Ties go to the earlier edge, as a single scan in order would.
    if (best == nullptr || fresh_score > best_started_score ||
        (fresh_score == best_started_score && best_fresh < best)) {
      best = best_fresh;
    }
  }
  return best;
}

GumbelParams Search::GumbelParamsOf(bool is_root) const {
  GumbelParams g;
  g.considered = params_.gumbel_considered;
  g.sigma = {.c_visit = params_.gumbel_c_visit,
             .c_scale = params_.gumbel_c_scale};
  g.noise = is_root && params_.gumbel_noise;
  g.virtual_loss = params_.virtual_loss;
  return g;
}

Edge* Search::SelectGumbel(Node* node, bool is_root) {
  const double draw_score = DrawScoreFor(node->side_to_move);
  if (!is_root) {
    return &node->edges[SelectGumbelInterior(*node, draw_score,
                                             GumbelParamsOf(false))];
  }
  if (!gumbel_root_.started()) {
    gumbel_root_.Start(*node, gumbel_budget_, GumbelParamsOf(true), draw_score,
                       &rng_);
  }
  return &node->edges[gumbel_root_.Next(*node)];
}

const Edge* Search::GumbelChoice() const {
  const Node* root = tree_.root();
  if (!params_.gumbel || !gumbel_root_.started() || root == nullptr ||
      !root->expanded() || root->proven() != Proven::kNone) {
    return nullptr;
  }
  return &root->edges[gumbel_root_.Choice(*root)];
}

std::vector<std::pair<Move, float>> Search::ImprovedRootPolicy() const {
  std::vector<std::pair<Move, float>> policy;
  const Node* root = tree_.root();
  if (!params_.gumbel || !gumbel_root_.started() || root == nullptr ||
      !root->expanded()) {
    return policy;
  }
  const std::vector<double> p = gumbel_root_.ImprovedPolicy(*root);
  policy.reserve(p.size());
  for (int i = 0; i < root->num_edges; ++i) {
    policy.emplace_back(root->edges[i].move, static_cast<float>(p[i]));
  }
  return policy;
}

void Search::AddLostChildren(Node* node, GameState* state,
                             const std::vector<uint8_t>& allows_win) {
  for (int i = 0; i < node->num_edges; ++i) {
    const int opponent_win_plies = allows_win[i];
    if (opponent_win_plies == 0) continue;
    Edge& edge = node->edges[i];
    state->Play(edge.move);
    const int child_side = state->SideToMove() & 1;
    state->Undo();
    edge.prior = 0;
    edge.child = tree_.NewNode();
    edge.child->side_to_move = child_side;
    SetProven(edge.child, Proven::kWin, opponent_win_plies);
  }
}

bool Search::ExpandLost(Node* node, GameState* state, const Slot* slot) {
  tree_.Expand(node,
               std::span<const Move>(slot->legal.begin(), slot->legal.end()));
  AddLostChildren(node, state, slot->allows_win);
  const bool proven = UpdateProven(node);
  assert(proven && "every child of the node is proven");
  return proven;
}

bool Search::ExpandWon(Node* node, GameState* state, Move move,
                       int child_loss_plies, const MoveList& legal) {
  state->Play(move);
  const GameResult after = state->Result();
  const int child_side = state->SideToMove() & 1;
  state->Undo();
  const Proven child_proven =
      after.IsOver() ? ProvenOf(after.outcome) : Proven::kLoss;
  const int child_plies = after.IsOver() ? 0 : child_loss_plies;
  const Proven for_mover =
      child_side == node->side_to_move ? child_proven : Flip(child_proven);
  if (for_mover != Proven::kWin) {
    assert(false && "a decisive move of the game does not win");
    return false;
  }
  tree_.Expand(node, std::span<const Move>(legal.begin(), legal.end()));
  for (Edge& edge : node->children()) {
    if (edge.move != move) continue;
    edge.prior = 1;
    edge.child = tree_.NewNode();
    edge.child->side_to_move = child_side;
    edge.child->terminal = after.IsOver();
    SetProven(edge.child, child_proven, child_plies);
  }
  SetProven(node, Proven::kWin, child_plies + 1);
  return true;
}

void Search::EvaluateAndBackup(RunStats* stats) {
  if (num_pending_ == 0) return;
  requests_.clear();
  for (int i = 0; i < num_pending_; ++i) {
    if (slots_[i]->known) continue;
    requests_.push_back({slots_[i]->state.get(), &slots_[i]->legal});
  }
  evaluations_.resize(requests_.size());
  if (!requests_.empty()) {
    const Clock::time_point start = Clock::now();
    evaluator_->Evaluate(std::span<const nn::EvalRequest>(requests_),
                         std::span<nn::Evaluation>(evaluations_));
    stats->eval_seconds += SecondsSince(start);
    ++stats->batches;
    stats->evaluations += requests_.size();
  }
  int evaluated = 0;
  for (int i = 0; i < num_pending_; ++i) {
    Slot* slot = slots_[i].get();
    Node* leaf = slot->path.back();
    if (slot->known) {
      const Proven proven = leaf->proven();
      Backup(slot->path, ExactWl(proven), ExactD(proven), leaf->side_to_move,
             slot->proven_now, stats);
      continue;
    }
    const nn::Evaluation& eval = evaluations_[evaluated++];
    Expand(leaf, slot->legal, eval.priors);
    if (!slot->allows_win.empty()) {
      AddLostChildren(leaf, slot->state.get(), slot->allows_win);
      NormalizePriors(leaf);
    }
    for (size_t k = 0; k < slot->moves.size(); ++k) slot->state->Undo();
    Backup(slot->path, double(eval.wdl[0]) - eval.wdl[2], eval.wdl[1],
           leaf->side_to_move, false, stats);
  }
  num_pending_ = 0;
  pending_bytes_ = 0;
}

void Search::Expand(Node* node, const MoveList& moves,
                    const std::vector<float>& priors) {
  const int n = moves.size();
  tree_.Expand(node, std::span<const Move>(moves.begin(), moves.end()));
  Edge* edges = node->edges;
  if (static_cast<int>(priors.size()) != n) {
    assert(false && "the evaluator returned one prior per legal move");
    for (int i = 0; i < n; ++i) edges[i].prior = 1.0f / n;
    return;
  }
  const double temp = params_.policy_softmax_temp;
  if (temp == 1.0) {
    for (int i = 0; i < n; ++i) edges[i].prior = priors[i];
    return;
  }
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const double p = std::pow(std::max(priors[i], 0.0f), 1.0 / temp);
    edges[i].prior = static_cast<float>(p);
    sum += p;
  }
  for (int i = 0; i < n; ++i) {
    edges[i].prior =
        sum > 0 ? static_cast<float>(edges[i].prior / sum) : 1.0f / n;
  }
}

void Search::NormalizePriors(Node* node) {
  double sum = 0;
  for (const Edge& edge : node->children()) sum += edge.prior;
  if (sum <= 0) return;
  for (Edge& edge : node->children()) {
    edge.prior = static_cast<float>(edge.prior / sum);
  }
}

void Search::Backup(std::span<Node* const> path, double wl, double d, int side,
                    bool leaf_proven_now, RunStats* stats) {
  for (Node* node : path) {
    const double v = node->side_to_move == side ? wl : -wl;
    ++node->n;
    --node->in_flight;
    // A proven node keeps its exact value (leaves of the same minibatch
    // below it may still come back with estimates).
    if (node->proven() != Proven::kNone && !node->terminal) continue;
    const double inv_n = 1.0 / node->n;
    node->wl += (v - node->wl) * inv_n;
    node->d += static_cast<float>((d - node->d) * inv_n);
  }
  stats->Playout(path.size());
  if (!leaf_proven_now) return;
  for (int i = static_cast<int>(path.size()) - 2; i >= 0; --i) {
    if (!UpdateProven(path[i])) break;
  }
}

bool Search::UpdateProven(Node* node) {
  if (node->proven() != Proven::kNone || !node->expanded()) return false;
  const int side = node->side_to_move;
  int shortest_win = INT_MAX;
  int longest_loss = -1;
  int shortest_draw = INT_MAX;
  bool open = false;  // some child's value is not proven
  for (const Edge& edge : node->children()) {
    const Node* child = edge.child;
    if (child == nullptr || child->proven() == Proven::kNone) {
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

void Search::CancelCollisions() {
  for (Node* node : collided_) --node->in_flight;
  collided_.clear();
}

std::vector<Move> Search::PrincipalVariation(const Edge& first) const {
  std::vector<Move> pv = {first.move};
  const Node* node = first.child;
  while (node != nullptr && node->n > 0 && node->expanded()) {
    const Edge* best = BestEdge(node, DrawScoreFor(node->side_to_move));
    if (best->child == nullptr || best->child->n == 0) break;
    pv.push_back(best->move);
    node = best->child;
  }
  return pv;
}

SearchResult Search::BuildResult() const {
  SearchResult r;
  const Node* root = tree_.root();
  if (root == nullptr) return r;
  const int side = root->side_to_move;
  r.root_visits = root->n;
  FillWdl(root->wl, root->d, r.root_wdl);
  r.root_q = r.root_wdl[0] - r.root_wdl[2];
  r.root_proven = root->proven();
  r.root_proven_plies = root->proven_plies;
  if (root->terminal) r.game_result = root_state_->Result();
  r.tree_nodes = tree_.nodes();
  r.tree_bytes = tree_.bytes();
  if (!root->expanded()) return r;
  std::vector<const Edge*> order;
  order.reserve(root->num_edges);
  for (const Edge& edge : root->children()) order.push_back(&edge);
  const double draw_score = DrawScoreFor(side);
  std::stable_sort(order.begin(), order.end(),
                   [side, draw_score](const Edge* a, const Edge* b) {
                     return RanksBefore(*a, *b, side, draw_score);
                   });
  r.moves.reserve(order.size());
  for (const Edge* edge : order) {
    MoveInfo info;
    info.move = edge->move;
    info.prior = edge->prior;
    const Node* child = edge->child;
    if (child != nullptr && child->n > 0) {
      info.visits = child->n;
      FillWdl(child->WlFor(side), child->d, info.wdl);
      info.q = info.wdl[0] - info.wdl[2];
    }
    if (child != nullptr && child->proven() != Proven::kNone) {
      info.proven = child->ProvenFor(side);
      info.proven_plies = child->proven_plies + 1;
    }
    info.pv = PrincipalVariation(*edge);
    r.moves.push_back(std::move(info));
  }
  const Edge* gumbel_choice = GumbelChoice();
  r.best_move =
      gumbel_choice != nullptr ? gumbel_choice->move : r.moves.front().move;
  return r;
}

SearchResult Search::Report() const { return BuildResult(); }

Move Search::BestMove() const {
  const Node* root = tree_.root();
  if (root == nullptr || !root->expanded()) return Move{};
  if (const Edge* choice = GumbelChoice(); choice != nullptr) {
    return choice->move;
  }
  return BestEdge(root, params_.draw_score)->move;
}

Move Search::SampleMove(double temperature) {
  const Node* root = tree_.root();
  if (root == nullptr || !root->expanded()) return Move{};
  // Gumbel's choice is already a sample (through the root's noise).
  if (GumbelChoice() != nullptr) return BestMove();
  std::vector<uint32_t> counts(root->num_edges, 0);
  for (int i = 0; i < root->num_edges; ++i) {
    const Node* child = root->edges[i].child;
    counts[i] = child != nullptr ? child->n : 0;
  }
  return SampleByCounts(counts, temperature);
}

Move Search::SampleMoveFrom(std::span<const std::pair<Move, uint32_t>> visits,
                            double temperature) {
  const Node* root = tree_.root();
  if (root == nullptr || !root->expanded()) return Move{};
  std::vector<uint32_t> counts(root->num_edges, 0);
  for (size_t k = 0; k < visits.size(); ++k) {
    // Usually in legal-move order (RootVisits()); else look the move up.
    int i = static_cast<int>(k);
    if (i >= root->num_edges || root->edges[i].move != visits[k].first) {
      i = -1;
      for (int j = 0; j < root->num_edges; ++j) {
        if (root->edges[j].move == visits[k].first) {
          i = j;
          break;
        }
      }
    }
    if (i >= 0) counts[i] = visits[k].second;
  }
  return SampleByCounts(counts, temperature);
}

Move Search::SampleByCounts(const std::vector<uint32_t>& counts,
                            double temperature) {
  const Node* root = tree_.root();
  const Edge* best = BestEdge(root, params_.draw_score);
  const int side = root->side_to_move;
  if (temperature <= 0 || best->child == nullptr ||
      best->child->ProvenFor(side) == Proven::kWin) {
    return best->move;
  }
  // Only counted moves that are not proven losses (BestEdge ranks those
  // last, so if the best is one, every move is).
  auto proven_loss = [side](const Edge& edge) {
    return edge.child != nullptr &&
           edge.child->ProvenFor(side) == Proven::kLoss;
  };
  uint32_t max_count = 0;
  for (int i = 0; i < root->num_edges; ++i) {
    if (!proven_loss(root->edges[i])) {
      max_count = std::max(max_count, counts[i]);
    }
  }
  if (max_count == 0) return best->move;
  std::vector<double> weights(root->num_edges, 0.0);
  double total = 0;
  for (int i = 0; i < root->num_edges; ++i) {
    if (counts[i] == 0 || proven_loss(root->edges[i])) continue;
    weights[i] = std::pow(double(counts[i]) / max_count, 1.0 / temperature);
    total += weights[i];
  }
  double x = rng_.Uniform() * total;
  for (int i = 0; i < root->num_edges; ++i) {
    if (weights[i] == 0) continue;
    x -= weights[i];
    if (x < 0) return root->edges[i].move;
  }
  // Rounding: the last candidate.
  for (int i = root->num_edges - 1; i >= 0; --i) {
    if (weights[i] > 0) return root->edges[i].move;
  }
  return best->move;
}

std::vector<std::pair<Move, uint32_t>> Search::RootVisits() const {
  std::vector<std::pair<Move, uint32_t>> visits;
  const Node* root = tree_.root();
  if (root == nullptr) return visits;
  const bool decided =
      root->proven() == Proven::kWin || root->proven() == Proven::kLoss;
  const Edge* best = decided && root->expanded()
                         ? BestEdge(root, params_.draw_score)
                         : nullptr;
  for (const Edge& edge : root->children()) {
    uint32_t n = edge.child ? edge.child->n : 0;
    if (best != nullptr) {
      n = &edge == best ? std::max<uint32_t>(root->n, 2) - 1 : 0;
    }
    visits.emplace_back(edge.move, n);
  }
  return visits;
}

std::vector<std::pair<Move, uint32_t>> Search::PrunedRootVisits() const {
  std::vector<std::pair<Move, uint32_t>> visits = RootVisits();
  const Node* root = tree_.root();
  const double k = params_.forced_playouts_k;
  if (k <= 0 || root == nullptr || !root->expanded()) return visits;
  const int side = root->side_to_move;
  // c*: the most visited child; ties in move-choice order.
  const Edge* best = nullptr;
  int64_t total = 0;
  for (const Edge& edge : root->children()) {
    const uint32_t n = edge.child != nullptr ? edge.child->n : 0;
    total += n;
    if (n == 0) continue;
    if (best == nullptr || n > best->child->n ||
        (n == best->child->n &&
         RanksBefore(edge, *best, side, params_.draw_score))) {
      best = &edge;
    }
  }
  if (best == nullptr) return visits;
  const double mult = PuctMultiplier(params_, root->n, total);
  const double bar = best->child->UtilityFor(side, params_.draw_score) +
                     mult * best->prior / (1.0 + best->child->n);
  for (int i = 0; i < root->num_edges; ++i) {
    const Edge& edge = root->edges[i];
    const uint32_t n = visits[i].second;
    // A proven win keeps its visits: it is the move to learn.
    if (&edge == best || n == 0 ||
        edge.child->ProvenFor(side) == Proven::kWin) {
      continue;
    }
    const double prior = std::max(edge.prior, 0.0f);
    // At most the visits that forcing could have added.
    const double forced = std::floor(std::sqrt(k * prior * total));
    uint32_t keep = forced >= n ? 0 : n - static_cast<uint32_t>(forced);
    // The fewest visits m with Q + mult * P / (1 + m) < bar: m = floor(x)
    // for x = mult * P / (bar - Q); none can go when Q >= bar.
    const double gap = bar - edge.child->UtilityFor(side, params_.draw_score);
    uint32_t fewest = n;
    if (gap > 0) {
      const double x = mult * prior / gap;
      if (x < n) fewest = static_cast<uint32_t>(std::floor(x));
    }
    keep = std::max(keep, fewest);
    visits[i].second = keep <= 1 ? 0 : keep;
  }
  return visits;
}

}  // namespace volkhv::search
