// Leaf extension: what a new leaf is (the game over, a repetition, a win or
// loss the prover shows), its evaluation by the network and its expansion.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <future>
#include <span>
#include <string>
#include <vector>

#include "engine/search/search.h"
#include "engine/search/search_internal.h"

namespace volkhv::search {

Search::Pick Search::ExtendLeaf(Worker* worker, Slot* slot, Node* node) {
  GameState* state = PlayToLeaf(slot);
  node->side_to_move = state->SideToMove() & 1;
  if (const Proven end = LeafEnd(node, *state, &slot->legal);
      end != Proven::kNone) {
    UndoToRoot(slot);
    node->terminal = 1;
    SetProven(node, end, 0);
    slot->known = slot->proven_now = true;
    return Pick::kKnown;
  }
  FilterMoves(*state, static_cast<int>(slot->moves.size()), slot);
  const MoveList& moves = slot->ExpandMoves();
  const Tactics tactics = ProbeTactics(*state, slot);
  const uint64_t expansion =
      Tree::ExpansionBytes(moves.size()) +
      sizeof(Node) * static_cast<uint64_t>(
                         tactics.decisive.IsNull() ? tactics.lost_moves : 1);
  if (node != tree_.root() && MemoryFull(expansion)) {
    UndoToRoot(slot);
    ReleasePath(*slot);
    return Pick::kMemoryFull;
  }
  const bool known =
      tactics.decisive.IsNull()
          ? tactics.lost_moves == moves.size() && ExpandLost(node, state, slot)
          : ExpandWon(node, state, tactics.decisive,
                      tactics.decisive_child_plies, moves);
  if (known) {
    UndoToRoot(slot);
    slot->known = slot->proven_now = true;
    return Pick::kKnown;
  }
  worker->pending_bytes += expansion;
  pending_bytes_ += expansion;
  return Pick::kLeaf;  // the state stays at the leaf until it is evaluated
}

GameState* Search::PlayToLeaf(Slot* slot) {
  if (!slot->in_sync) {
    slot->state = root_state_->Clone();
    slot->in_sync = true;
  }
  for (Move move : slot->moves) slot->state->Play(move);
  return slot->state.get();
}

void Search::UndoToRoot(Slot* slot) {
  for (size_t i = 0; i < slot->moves.size(); ++i) slot->state->Undo();
}

Proven Search::LeafEnd(const Node* node, const GameState& state,
                       MoveList* legal) const {
  const GameResult result = state.Result();
  if (result.IsOver()) return ProvenOf(result.outcome);
  if (params_.two_fold_draws && node != tree_.root() &&
      state.Occurrences() >= 2) {
    return Proven::kDraw;
  }
  state.LegalMoves(legal);
  assert(!legal->empty() && "an ongoing game has legal moves");
  // The game broke its contract: call it a draw.
  if (legal->empty()) return Proven::kDraw;
  return Proven::kNone;
}

void Search::FilterMoves(const GameState& state, int depth, Slot* slot) const {
  slot->filtered = false;
  if (filter_.empty()) return;
  const MoveList& legal = slot->legal;
  const int side = state.SideToMove() & 1;
  std::vector<uint8_t> keep(legal.size(), 1);
  std::vector<uint8_t> listed(legal.size());
  bool applies = false;
  for (const MoveRule& rule : filter_) {
    if (rule.side != side || depth >= rule.until_depth) continue;
    applies = true;
    std::fill(listed.begin(), listed.end(), 0);
    for (const std::string& text : rule.moves) {
      const absl::StatusOr<Move> move = state.ParseMove(text);
      if (!move.ok()) continue;
      for (int i = 0; i < legal.size(); ++i) {
        if (legal[i] == *move) listed[i] = 1;
      }
    }
    for (int i = 0; i < legal.size(); ++i) {
      if ((listed[i] != 0) != rule.allow) keep[i] = 0;
    }
  }
  if (!applies) return;
  slot->kept.clear();
  slot->kept_moves.clear();
  for (int i = 0; i < legal.size(); ++i) {
    if (keep[i] == 0) continue;
    slot->kept.push_back(i);
    slot->kept_moves.push_back(legal[i]);
  }
  // No move left: the rules are ignored here; all kept: nothing to filter.
  slot->filtered =
      !slot->kept.empty() && slot->kept_moves.size() < legal.size();
}

Search::Tactics Search::ProbeTactics(const GameState& state, Slot* slot) const {
  Tactics tactics;
  slot->allows_win.clear();
  const Prover* prover = prover_;
  if (prover == nullptr) return tactics;
  if (params_.immediate_wins) tactics.decisive = prover->ImmediateWin(state);
  if (tactics.decisive.IsNull() && params_.unstoppable_threats) {
    tactics.decisive = prover->UnstoppableThreat(state);
    tactics.decisive_child_plies = 2;
    if (tactics.decisive.IsNull() && params_.wins_in_five) {
      tactics.decisive = prover->WinInFive(state);
      tactics.decisive_child_plies = 4;
    }
  }
  if (!tactics.decisive.IsNull() && slot->filtered &&
      !slot->kept_moves.contains(tactics.decisive)) {
    tactics.decisive = Move();  // a win the filter forbids
    tactics.decisive_child_plies = 0;
  }
  if (tactics.decisive.IsNull() && params_.avoid_immediate_losses) {
    tactics.lost_moves = prover->MovesAllowingQuickWin(
        state, slot->ExpandMoves(), params_.avoid_unstoppable_threats,
        &slot->allows_win);
    if (tactics.lost_moves == 0) slot->allows_win.clear();
  }
  return tactics;
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
    Node* child = tree_.AddChild(node, i);
    child->side_to_move = child_side;
    SetProven(child, Proven::kWin, opponent_win_plies);
  }
}

bool Search::ExpandLost(Node* node, GameState* state, const Slot* slot) {
  const MoveList& moves = slot->ExpandMoves();
  tree_.Expand(node, std::span<const Move>(moves.begin(), moves.end()));
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
  for (int i = 0; i < node->num_edges; ++i) {
    Edge& edge = node->edges[i];
    if (edge.move != move) continue;
    edge.prior = 1;
    Node* child = tree_.AddChild(node, i);
    child->side_to_move = child_side;
    child->terminal = after.IsOver();
    SetProven(child, child_proven, child_plies);
  }
  SetProven(node, Proven::kWin, child_plies + 1);
  return true;
}

void Search::EvaluateBatch(Worker* worker) {
  worker->requests.clear();
  for (int i = 0; i < worker->num_pending; ++i) {
    Slot* slot = worker->slots[i].get();
    if (slot->known) continue;
    worker->requests.push_back({slot->state.get(), &slot->legal});
  }
  worker->evaluations.resize(worker->requests.size());
  worker->eval_seconds = 0;
  const auto evaluate = [this, worker] {
    if (worker->requests.empty()) return;
    const Clock::time_point start = Clock::now();
    evaluator_->Evaluate(std::span<const nn::EvalRequest>(worker->requests),
                         std::span<nn::Evaluation>(worker->evaluations));
    worker->eval_seconds = SecondsSince(start);
  };
  // A leaf search only reads the leaves (AlphaBetaSearch::Search plays on a
  // copy), so the network, which reads them too, runs meanwhile on a thread
  // of its own: the two take two cores instead of one after the other.
  if (!worker->requests.empty() && LeafSearchDepth() > 0) {
    std::future<void> network = std::async(std::launch::async, evaluate);
    ScoreQuiescence(worker);
    network.get();
    return;
  }
  ScoreQuiescence(worker);
  evaluate();
}

void Search::MakeLeafAlphaBeta(int hash_mb,
                               std::unique_ptr<AlphaBetaSearch>* search) const {
  if (*search != nullptr &&
      (*search)->options().quiescence_plies == params_.leaf_quiescence_plies &&
      (*search)->options().recapture_plies ==
          params_.leaf_quiescence_recaptures) {
    return;
  }
  AlphaBetaOptions options;
  options.hash_mb = hash_mb;
  options.quiescence_plies = params_.leaf_quiescence_plies;
  options.recapture_plies = params_.leaf_quiescence_recaptures;
  *search = std::make_unique<AlphaBetaSearch>(heuristic_, options);
}

int Search::LeafSearchDepth() const {
  if (heuristic_ == nullptr || params_.leaf_quiescence_weight <= 0) return 0;
  return params_.leaf_search_depth >= 0 ? params_.leaf_search_depth
                                        : heuristic_->LeafSearchDepth();
}

void Search::ScoreQuiescence(Worker* worker) {
  worker->quiescence_wl.clear();
  worker->quiescence_move.clear();
  if (heuristic_ == nullptr || params_.leaf_quiescence_weight <= 0) return;
  // The least table: only leaf_search_depth uses it.
  MakeLeafAlphaBeta(/*hash_mb=*/1, &worker->quiescence);
  const int leaf_search_depth = LeafSearchDepth();
  for (int i = 0; i < worker->num_pending; ++i) {
    Slot* slot = worker->slots[i].get();
    if (slot->known) continue;
    Move move;
    int score;
    if (leaf_search_depth > 0) {
      AlphaBetaLimits limits;
      limits.depth = leaf_search_depth;
      const AlphaBetaResult result =
          worker->quiescence->Search(*slot->state, limits);
      score = result.score;
      move = result.best_move;
    } else {
      score = worker->quiescence->QuiescenceScore(slot->state.get(), &move);
    }
    worker->quiescence_move.push_back(move);
    worker->quiescence_wl.push_back(
        static_cast<float>(std::tanh(score / params_.leaf_quiescence_scale)));
  }
}

void Search::BackupBatch(Worker* worker) {
  RunStats* stats = &worker->stats;
  if (!worker->requests.empty()) {
    stats->eval_seconds += worker->eval_seconds;
    ++stats->batches;
    stats->evaluations += worker->requests.size();
    worker->requests.clear();
  }
  int evaluated = 0;
  for (int i = 0; i < worker->num_pending; ++i) {
    Slot* slot = worker->slots[i].get();
    Node* leaf = slot->path.back();
    if (slot->known) {
      const Proven proven = leaf->proven();
      Backup(slot->path, ExactWl(proven), ExactD(proven), leaf->proven_plies,
             leaf->side_to_move, slot->proven_now, stats);
      continue;
    }
    const nn::Evaluation& eval = worker->evaluations[evaluated++];
    if (slot->filtered) {
      // The kept moves' priors, scaled to sum to 1 (a malformed
      // evaluation gives none: Expand makes them uniform).
      std::vector<float> priors;
      if (eval.priors.size() == static_cast<size_t>(slot->legal.size())) {
        for (int index : slot->kept) priors.push_back(eval.priors[index]);
      }
      Expand(leaf, slot->kept_moves, priors);
      NormalizePriors(leaf);
    } else {
      Expand(leaf, slot->legal, eval.priors);
    }
    if (!slot->allows_win.empty()) {
      AddLostChildren(leaf, slot->state.get(), slot->allows_win);
      NormalizePriors(leaf);
    }
    if (!worker->quiescence_move.empty()) {
      RaiseQuiescencePrior(leaf, worker->quiescence_move[evaluated - 1],
                           params_.leaf_quiescence_prior);
    }
    for (size_t k = 0; k < slot->moves.size(); ++k) slot->state->Undo();
    if (eval.has_moves_left()) moves_left_seen_ = true;
    double wl = double(eval.wdl[0]) - eval.wdl[2];
    double d = eval.wdl[1];
    if (!worker->quiescence_wl.empty()) {
      const double w = params_.leaf_quiescence_weight;
      wl = (1 - w) * wl + w * worker->quiescence_wl[evaluated - 1];
      d *= 1 - w;
    }
    Backup(slot->path, wl, d, eval.has_moves_left() ? eval.moves_left : 0.0,
           leaf->side_to_move, false, stats);
  }
  pending_playouts_ -= worker->num_pending;
  pending_bytes_ -= worker->pending_bytes;
  worker->num_pending = 0;
  worker->pending_bytes = 0;
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

void Search::RaiseQuiescencePrior(Node* node, Move move, double share) {
  if (share <= 0 || move == Move{}) return;
  Edge* raised = nullptr;
  for (Edge& edge : node->edge_span()) {
    if (edge.move == move) raised = &edge;
  }
  // Not among the moves searched, or proven to lose (prior 0).
  if (raised == nullptr || raised->prior <= 0) return;
  for (Edge& edge : node->edge_span()) {
    edge.prior = static_cast<float>((1 - share) * edge.prior);
  }
  raised->prior += static_cast<float>(share);
}

void Search::NormalizePriors(Node* node) {
  double sum = 0;
  for (const Edge& edge : node->edge_span()) sum += edge.prior;
  if (sum <= 0) return;
  for (Edge& edge : node->edge_span()) {
    edge.prior = static_cast<float>(edge.prior / sum);
  }
}

}  // namespace volkhv::search
