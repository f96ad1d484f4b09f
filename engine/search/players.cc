#include "engine/search/players.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/search/centipawns.h"

namespace volkhv::search {

std::string PlayerEval::Comment() const {
  std::string text;
  if (mate_plies != 0) {
    const int moves = (std::abs(mate_plies) + 1) / 2;
    text = absl::StrFormat("%sM%d", mate_plies > 0 ? "+" : "-", moves);
  } else {
    text = absl::StrFormat("%+.2f", score_cp / 100.0);
  }
  if (depth > 0) {
    text += absl::StrFormat("/%d", depth);
  } else if (nodes > 0) {
    text += absl::StrFormat(" %dv", nodes);
  }
  return text;
}

Move RandomPlayer::ChooseMove(const GameState& state) {
  MoveList moves;
  state.LegalMoves(&moves);
  return moves[static_cast<int>(rng_() % static_cast<uint64_t>(moves.size()))];
}

AlphaBetaPlayer::AlphaBetaPlayer(std::shared_ptr<const Heuristic> heuristic,
                                 const AlphaBetaLimits& limits,
                                 const AlphaBetaOptions& options,
                                 std::string name)
    : heuristic_(std::move(heuristic)),
      search_(heuristic_.get(), options),
      limits_(limits),
      name_(std::move(name)) {}

Move AlphaBetaPlayer::ChooseMove(const GameState& state) {
  AlphaBetaLimits limits = limits_;
  if (clock_ && limits.time_ms == 0) {
    limits.time_ms = SearchLimitsFor(*clock_, state.SideToMove() & 1).time_ms;
  }
  last_result_ = search_.Search(state, limits);
  PlayerEval eval;
  eval.score_cp = last_result_.score;
  eval.mate_plies = last_result_.MatePlies();
  eval.depth = last_result_.depth;
  eval.nodes = last_result_.nodes;
  eval.seconds = last_result_.seconds;
  last_ = eval;
  return last_result_.best_move;
}

PolicyPlayer::PolicyPlayer(std::shared_ptr<nn::Evaluator> evaluator,
                           double temperature, uint64_t seed, std::string name)
    : evaluator_(std::move(evaluator)),
      temperature_(temperature),
      rng_(seed),
      name_(std::move(name)) {}

Move PolicyPlayer::ChooseMove(const GameState& state) {
  MoveList moves;
  state.LegalMoves(&moves);
  const nn::EvalRequest request{&state, &moves};
  nn::Evaluation evaluation;
  evaluator_->Evaluate({&request, 1}, {&evaluation, 1});
  const std::vector<float>& priors = evaluation.priors;
  int chosen = 0;
  if (temperature_ <= 0) {
    for (int i = 1; i < moves.size(); ++i) {
      if (priors[i] > priors[chosen]) chosen = i;
    }
  } else {
    std::vector<double> weights(moves.size());
    double total = 0;
    for (int i = 0; i < moves.size(); ++i) {
      weights[i] = std::pow(std::max<double>(priors[i], 0), 1 / temperature_);
      total += weights[i];
    }
    // A uniform draw in [0, total) from 53 random bits (the same on every
    // platform, unlike std:: distributions).
    double x = static_cast<double>(rng_() >> 11) * 0x1.0p-53 * total;
    chosen = moves.size() - 1;
    for (int i = 0; i < moves.size(); ++i) {
      if (x < weights[i]) {
        chosen = i;
        break;
      }
      x -= weights[i];
    }
  }
  PlayerEval eval;
  eval.score_cp = CentipawnsFromQ(evaluation.wdl[0] - evaluation.wdl[2]);
  last_ = eval;
  return moves[chosen];
}

MctsPlayer::MctsPlayer(std::shared_ptr<nn::Evaluator> evaluator,
                       const Prover* prover, const Heuristic* heuristic,
                       const SearchParams& params, const SearchLimits& limits,
                       uint64_t seed, std::string name)
    : evaluator_(std::move(evaluator)),
      search_(params, evaluator_.get(), prover, seed),
      limits_(limits),
      name_(std::move(name)) {
  search_.SetHeuristic(heuristic);
}

void MctsPlayer::NewGame() {
  start_.reset();
  after_.reset();
  moves_.clear();
  last_eval_.reset();
}

bool MctsPlayer::Continues(const GameState& state) {
  if (after_ == nullptr) return false;
  auto same = [&state](const GameState& s) {
    return s.Hash() == state.Hash() && s.PositionText() == state.PositionText();
  };
  if (state.PliesPlayed() == after_->PliesPlayed()) return same(*after_);
  if (state.PliesPlayed() != after_->PliesPlayed() + 1) return false;
  MoveList moves;
  after_->LegalMoves(&moves);
  for (Move m : moves) {
    after_->Play(m);
    if (same(*after_)) {
      moves_.push_back(m);
      return true;
    }
    after_->Undo();
  }
  return false;
}

Move MctsPlayer::ChooseMove(const GameState& state) {
  bool positioned = false;
  if (Continues(state)) {
    positioned = search_.SetPosition(*start_, moves_).ok();
  }
  if (!positioned) {
    start_ = state.Clone();
    after_ = state.Clone();
    moves_.clear();
    // The state is legal as given: SetPosition without moves cannot fail.
    search_.SetPosition(*start_).IgnoreError();
  }
  SearchLimits limits = limits_;
  if (clock_ && limits.time_ms == 0) {
    limits.time_ms = SearchLimitsFor(*clock_, state.SideToMove() & 1).time_ms;
    limits.infinite = false;
  }
  last_result_ = search_.Run(limits);
  const Move move = last_result_.best_move;
  PlayerEval eval;
  eval.score_cp = CentipawnsFromQ(last_result_.root_q);
  if (last_result_.root_proven == Proven::kWin) {
    eval.mate_plies = std::max(1, last_result_.root_proven_plies);
    eval.score_cp = kMateScore - eval.mate_plies;
  } else if (last_result_.root_proven == Proven::kLoss) {
    eval.mate_plies = -std::max(1, last_result_.root_proven_plies);
    eval.score_cp = -(kMateScore + eval.mate_plies);
  } else if (last_result_.root_proven == Proven::kDraw) {
    eval.score_cp = 0;
  }
  eval.nodes = last_result_.root_visits;
  eval.seconds = last_result_.elapsed_seconds;
  last_eval_ = eval;
  after_->Play(move);
  moves_.push_back(move);
  return move;
}

}  // namespace volkhv::search
