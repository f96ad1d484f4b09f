#include "engine/search/alphabeta.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <memory>
#include <utility>

namespace volkhv::search {
namespace {

constexpr int kInfinity = kMateScore + 1;

// Move-ordering tiers (MoveClass::order and history stay below kTierSpan).
constexpr int kTierSpan = 1 << 26;
constexpr int kTtMoveScore = 1 << 30;
constexpr int kNoisyBase = 1 << 28;
constexpr int kKillerBase = 1 << 27;

int ToTable(int score, int ply) {
  if (score >= kMateBound) return score + ply;
  if (score <= -kMateBound) return score - ply;
  return score;
}

int FromTable(int score, int ply) {
  if (score >= kMateBound) return score - ply;
  if (score <= -kMateBound) return score + ply;
  return score;
}

Move Unpack(uint32_t packed) {
  return MakeMove(packed & 0xFF, (packed >> 8) & 0xFF, (packed >> 16) & 0xFF);
}

}  // namespace

int AlphaBetaResult::MatePlies() const {
  if (score >= kMateBound) return kMateScore - score;
  if (score <= -kMateBound) return -(kMateScore + score);
  return 0;
}

AlphaBetaSearch::AlphaBetaSearch(const Heuristic* heuristic,
                                 const AlphaBetaOptions& options)
    : heuristic_(heuristic),
      options_(options),
      history_(2 * kHistorySquares * kHistorySquares, 0),
      plies_(kMaxPly) {
  const uint64_t bytes = static_cast<uint64_t>(std::max(options_.hash_mb, 1))
                         << 20;
  const uint64_t entries = std::bit_floor(bytes / sizeof(TtEntry));
  table_.assign(entries, TtEntry{});
  mask_ = entries - 1;
}

void AlphaBetaSearch::Clear() {
  std::fill(table_.begin(), table_.end(), TtEntry{});
  std::fill(history_.begin(), history_.end(), 0);
  for (auto& k : killers_) k = {Move{}, Move{}};
  generation_ = 0;
}

const AlphaBetaSearch::TtEntry* AlphaBetaSearch::Probe(uint64_t key) const {
  const TtEntry& e = table_[key & mask_];
  return e.key == key && (e.bound & 3) != kNone ? &e : nullptr;
}

void AlphaBetaSearch::Store(uint64_t key, Move move, int score, int depth,
                            Bound bound, int ply) {
  TtEntry& e = table_[key & mask_];
  const bool same = e.key == key;
  const bool stale = (e.bound >> 2) != generation_;
  if (!same && !stale && depth < e.depth) return;
  if (same && depth < e.depth - 2 && bound != kExact) return;
  if (!move.IsNull() || !same) e.move = move.Packed();
  e.key = key;
  e.score = static_cast<int16_t>(ToTable(score, ply));
  e.depth = static_cast<int8_t>(std::clamp(depth, 0, 127));
  e.bound = static_cast<uint8_t>(bound | generation_ << 2);
}

int AlphaBetaSearch::TerminalScore(const GameResult& result, int ply) {
  switch (result.outcome) {
    case Outcome::kWin:
      return kMateScore - ply;
    case Outcome::kLoss:
      return -(kMateScore - ply);
    default:
      return 0;
  }
}

void AlphaBetaSearch::CheckLimits() {
  if (!can_abort_) return;
  if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
    aborted_ = true;
  } else if (limits_.nodes > 0 && nodes_ >= limits_.nodes) {
    aborted_ = true;
  } else if (limits_.time_ms > 0) {
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed >= std::chrono::milliseconds(limits_.time_ms)) aborted_ = true;
  }
}

void AlphaBetaSearch::ScoreMoves(PlyData& data, Move tt_move, int ply) const {
  const int side = state_->SideToMove();
  const int* history = &history_[side * kHistorySquares * kHistorySquares];
  for (int i = 0; i < data.moves.size(); ++i) {
    const Move m = data.moves[i];
    const MoveClass& c = data.classes[i];
    int score;
    if (m == tt_move) {
      score = kTtMoveScore;
    } else if (c.noisy) {
      score = kNoisyBase + std::clamp(c.order, -kTierSpan + 1, kTierSpan - 1);
    } else if (m == killers_[ply][0]) {
      score = kKillerBase + 1;
    } else if (m == killers_[ply][1]) {
      score = kKillerBase;
    } else {
      score = std::clamp(history[m.from * kHistorySquares + m.to] + c.order,
                         -kTierSpan + 1, kTierSpan - 1);
    }
    data.scores[i] = score;
  }
}

void AlphaBetaSearch::PickNext(PlyData& data, int index) {
  int best = index;
  for (int i = index + 1; i < data.moves.size(); ++i) {
    if (data.scores[i] > data.scores[best]) best = i;
  }
  if (best == index) return;
  // A rotation, not a swap: moves of equal score keep their generated order,
  // so a list with the quiet moves left out is searched in the same order.
  std::rotate(data.moves.begin() + index, data.moves.begin() + best,
              data.moves.begin() + best + 1);
  std::rotate(data.scores.begin() + index, data.scores.begin() + best,
              data.scores.begin() + best + 1);
  std::rotate(data.classes.begin() + index, data.classes.begin() + best,
              data.classes.begin() + best + 1);
}

void AlphaBetaSearch::UpdatePv(int ply, Move move) {
  pv_[ply][ply] = move;
  const int child_end = ply + 1 < kMaxPly ? pv_length_[ply + 1] : ply + 1;
  for (int i = ply + 1; i < child_end; ++i) pv_[ply][i] = pv_[ply + 1][i];
  pv_length_[ply] = std::max(child_end, ply + 1);
}

int AlphaBetaSearch::Quiescence(int alpha, int beta, int ply, int qply,
                                int recapture_square) {
  pv_length_[ply] = ply;
  ++nodes_;
  if ((nodes_ & 1023) == 0) CheckLimits();
  if (aborted_) return 0;
  seldepth_ = std::max(seldepth_, ply);
  const GameResult result = state_->Result();
  if (result.IsOver()) return TerminalScore(result, ply);
  if (ply >= kMaxPly - 1) return heuristic_->Evaluate(*state_);

  const bool in_check = state_->InCheck();
  int stand_pat = -kInfinity;
  if (!in_check) {
    stand_pat = heuristic_->Evaluate(*state_);
    if (stand_pat >= beta) return stand_pat;
    alpha = std::max(alpha, stand_pat);
  }
  // Past quiescence_plies only recaptures on the square just taken are
  // searched, for at most recapture_plies more: an exchange is seen to its
  // end at the cost of a narrow line.
  const bool recaptures_only = qply >= options_.quiescence_plies;
  if (recaptures_only &&
      (in_check || recapture_square < 0 ||
       qply >= options_.quiescence_plies + options_.recapture_plies)) {
    return in_check ? heuristic_->Evaluate(*state_) : stand_pat;
  }

  PlyData& data = plies_[ply];
  if (in_check) {
    state_->LegalMoves(&data.moves);
    heuristic_->ClassifyMoves(*state_, data.moves, data.classes.data());
  } else {
    heuristic_->NoisyMoves(*state_, &data.moves, data.classes.data());
  }
  ScoreMoves(data, Move{}, ply);

  // In check every move is searched (a mate must be seen as one).
  int best = in_check ? -(kMateScore - ply) : stand_pat;
  for (int i = 0; i < data.moves.size(); ++i) {
    PickNext(data, i);
    const MoveClass c = data.classes[i];
    if (!in_check) {
      if (!c.noisy) break;  // noisy moves come first
      if (stand_pat + c.gain + options_.delta_margin <= alpha) continue;
    }
    const Move m = data.moves[i];
    if (recaptures_only && m.to != recapture_square) continue;
    state_->Play(m);
    const int score =
        -Quiescence(-beta, -alpha, ply + 1, qply + 1, c.gain > 0 ? m.to : -1);
    state_->Undo();
    if (aborted_) return 0;
    if (score > best) {
      best = score;
      if (score > alpha) {
        alpha = score;
        UpdatePv(ply, m);
        if (alpha >= beta) break;
      }
    }
  }
  return best;
}

int AlphaBetaSearch::Negamax(int depth, int alpha, int beta, int ply) {
  if (state_->InCheck()) ++depth;  // check extension
  if (depth <= 0) return Quiescence(alpha, beta, ply, 0, -1);
  pv_length_[ply] = ply;
  ++nodes_;
  if ((nodes_ & 1023) == 0) CheckLimits();
  if (aborted_) return 0;
  seldepth_ = std::max(seldepth_, ply);
  if (ply > 0) {
    const GameResult result = state_->Result();
    if (result.IsOver()) return TerminalScore(result, ply);
    // No line from here can beat a mate already found nearer the root.
    alpha = std::max(alpha, -(kMateScore - ply));
    beta = std::min(beta, kMateScore - ply - 1);
    if (alpha >= beta) return alpha;
  }
  if (ply >= kMaxPly - 1) return heuristic_->Evaluate(*state_);

  const bool pv_node = beta - alpha > 1;
  const uint64_t key = state_->Hash();
  Move tt_move;
  if (const TtEntry* e = Probe(key)) {
    tt_move = Unpack(e->move);
    if (!pv_node && ply > 0 && e->depth >= depth) {
      const int score = FromTable(e->score, ply);
      const int bound = e->bound & 3;
      if (bound == kExact || (bound == kLower && score >= beta) ||
          (bound == kUpper && score <= alpha)) {
        return score;
      }
    }
  }

  PlyData& data = plies_[ply];
  data.moves.clear();
  state_->LegalMoves(&data.moves);
  heuristic_->ClassifyMoves(*state_, data.moves, data.classes.data());
  ScoreMoves(data, tt_move, ply);

  const int original_alpha = alpha;
  int best = -kInfinity;
  Move best_move;
  for (int i = 0; i < data.moves.size(); ++i) {
    PickNext(data, i);
    const Move m = data.moves[i];
    const bool noisy = data.classes[i].noisy;
    state_->Play(m);
    int score;
    if (i == 0) {
      score = -Negamax(depth - 1, -beta, -alpha, ply + 1);
    } else {
      score = -Negamax(depth - 1, -alpha - 1, -alpha, ply + 1);
      if (score > alpha && score < beta && !aborted_) {
        score = -Negamax(depth - 1, -beta, -alpha, ply + 1);
      }
    }
    state_->Undo();
    if (aborted_) return 0;
    if (score > best) {
      best = score;
      best_move = m;
      if (score > alpha) {
        alpha = score;
        UpdatePv(ply, m);
        if (alpha >= beta) {
          if (!noisy) {
            if (killers_[ply][0] != m) {
              killers_[ply][1] = killers_[ply][0];
              killers_[ply][0] = m;
            }
            int& h = history_[state_->SideToMove() * kHistorySquares *
                                  kHistorySquares +
                              m.from * kHistorySquares + m.to];
            h += depth * depth;
            if (h > kTierSpan / 2) {
              for (int& x : history_) x /= 2;
            }
          }
          break;
        }
      }
    }
  }
  const Bound bound = best >= beta            ? kLower
                      : best > original_alpha ? kExact
                                              : kUpper;
  Store(key, best_move, best, depth, bound, ply);
  return best;
}

void AlphaBetaSearch::Begin(GameState* state, const AlphaBetaLimits& limits,
                            const std::atomic<bool>* stop) {
  start_ = std::chrono::steady_clock::now();
  state_ = state;
  limits_ = limits;
  stop_ = stop;
  nodes_ = 0;
  seldepth_ = 0;
  aborted_ = false;
  can_abort_ = false;
}

int AlphaBetaSearch::QuiescenceScore(GameState* state, Move* best_move) {
  Begin(state, AlphaBetaLimits{}, nullptr);
  const int score = Quiescence(-kInfinity, kInfinity, 0, 0, -1);
  state_ = nullptr;
  if (best_move != nullptr) {
    *best_move = pv_length_[0] > 0 ? pv_[0][0] : Move{};
  }
  return score;
}

AlphaBetaResult AlphaBetaSearch::Search(const GameState& state,
                                        const AlphaBetaLimits& limits,
                                        const std::atomic<bool>* stop) {
  AlphaBetaResult result;
  std::unique_ptr<GameState> clone = state.Clone();
  Begin(clone.get(), limits, stop);
  generation_ = static_cast<uint8_t>((generation_ + 1) & 63);
  for (int& h : history_) h /= 4;
  for (auto& k : killers_) k = {Move{}, Move{}};

  auto finish = [&] {
    result.nodes = nodes_;
    result.seldepth = seldepth_;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count();
    state_ = nullptr;
    return result;
  };
  if (state.Result().IsOver()) return finish();

  MoveList root_moves;
  state.LegalMoves(&root_moves);
  int max_depth = limits.depth > 0 ? limits.depth : kMaxPly / 2;
  if (limits.depth <= 0 && limits.time_ms <= 0 && limits.nodes == 0) {
    max_depth = 1;
  }

  for (int depth = 1; depth <= max_depth; ++depth) {
    can_abort_ = depth > 1;
    const int score = Negamax(depth, -kInfinity, kInfinity, 0);
    if (aborted_) break;
    result.depth = depth;
    result.score = score;
    result.pv.assign(pv_[0].begin(), pv_[0].begin() + pv_length_[0]);
    result.best_move = result.pv.empty() ? root_moves[0] : result.pv[0];
    // Iterative deepening finds the shortest proven result first.
    const int mate = result.MatePlies();
    if (mate != 0 && std::abs(mate) <= depth) break;
    if (limits.time_ms > 0) {
      const auto elapsed = std::chrono::steady_clock::now() - start_;
      // The next iteration would most likely not finish.
      if (elapsed * 2 >= std::chrono::milliseconds(limits.time_ms)) break;
    }
    if (limits.nodes > 0 && nodes_ >= limits.nodes) break;
  }
  return finish();
}

}  // namespace volkhv::search
