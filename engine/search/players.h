// Players: anything that picks a move in a game position, behind one
// interface, for matches (selfplay/match.h) and front ends. RandomPlayer,
// AlphaBetaPlayer (the hand-written baseline), PolicyPlayer (the network's
// raw policy) and MctsPlayer (the PUCT search with a network).
#ifndef VOLKHV_ENGINE_SEARCH_PLAYERS_H_
#define VOLKHV_ENGINE_SEARCH_PLAYERS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/game/game.h"
#include "engine/game/heuristic.h"
#include "engine/search/alphabeta.h"
#include "engine/search/search.h"
#include "engine/search/search_params.h"
#include "engine/search/search_result.h"
#include "engine/search/time_manager.h"
#include "nn/evaluator.h"

namespace volkhv::search {

// What a player thought of the position it moved in, for adjudication and
// game-file comments. From the point of view of the player who moved.
struct PlayerEval {
  int score_cp = 0;    // CentipawnsFromQ; proven results are beyond 10000
  int mate_plies = 0;  // > 0: wins in n plies; < 0: loses in -n; 0: unproven
  int depth = 0;       // alpha-beta iterations (0 for other players)
  uint64_t nodes = 0;  // nodes searched or visits
  double seconds = 0;

  // "+0.35/3", "-M4/6" (mate in moves), "+0.12 200v" without a depth.
  std::string Comment() const;
};

// One player of one game at a time: not thread-safe. A match makes one
// Player per game thread (evaluators may be shared; they are thread-safe).
class Player {
 public:
  virtual ~Player() = default;
  // The player and its settings, e.g. "alphabeta:depth=3".
  virtual std::string Name() const = 0;
  // Called before each game (clears tables, trees).
  virtual void NewGame() {}
  // A legal move of `state`, whose game must not be over; a player that can
  // fail (an outside engine) may instead return anything and say why in
  // LastFailure().
  virtual Move ChooseMove(const GameState& state) = 0;
  // The evaluation behind the last ChooseMove, if the player has one.
  virtual std::optional<PlayerEval> LastEval() const { return std::nullopt; }
  // The game's clocks for the next ChooseMove (a match with a time
  // control: time_left_ms, increment_ms, moves_to_go); a player budgets its
  // move from them (time_manager.h) along with its own limits. Players
  // without a time limit ignore it.
  virtual void SetClock(const TimeControl& clock) {}
  // Why the last ChooseMove gave no legal move ("" when it did): an engine
  // that exited, stalled or answered what is not a legal move.
  virtual std::string LastFailure() const { return {}; }
};

// Uniformly random legal moves. Deterministic for a seed.
class RandomPlayer final : public Player {
 public:
  explicit RandomPlayer(uint64_t seed) : rng_(seed) {}
  std::string Name() const override { return "random"; }
  Move ChooseMove(const GameState& state) override;

 private:
  std::mt19937_64 rng_;
};

// The alpha-beta baseline with a hand-written evaluation.
class AlphaBetaPlayer final : public Player {
 public:
  // `heuristic` must match the game played.
  AlphaBetaPlayer(std::shared_ptr<const Heuristic> heuristic,
                  const AlphaBetaLimits& limits,
                  const AlphaBetaOptions& options, std::string name);
  std::string Name() const override { return name_; }
  void NewGame() override { search_.Clear(); }
  Move ChooseMove(const GameState& state) override;
  std::optional<PlayerEval> LastEval() const override { return last_; }
  // With a clock a search also ends at its budget (ClockBudgetMs), unless
  // the limits have a fixed time.
  void SetClock(const TimeControl& clock) override { clock_ = clock; }
  // The full result of the last search.
  const AlphaBetaResult& last_result() const { return last_result_; }

 private:
  std::shared_ptr<const Heuristic> heuristic_;
  AlphaBetaSearch search_;
  AlphaBetaLimits limits_;
  std::optional<TimeControl> clock_;
  std::string name_;
  AlphaBetaResult last_result_;
  std::optional<PlayerEval> last_;
};

// The network's policy without search: the move of highest prior
// (temperature 0; ties to the first legal move) or one drawn with
// probability proportional to prior^(1/temperature).
class PolicyPlayer final : public Player {
 public:
  // `evaluator` is shared (thread-safe) and must outlive the player.
  PolicyPlayer(std::shared_ptr<nn::Evaluator> evaluator, double temperature,
               uint64_t seed, std::string name);
  std::string Name() const override { return name_; }
  Move ChooseMove(const GameState& state) override;
  std::optional<PlayerEval> LastEval() const override { return last_; }

 private:
  std::shared_ptr<nn::Evaluator> evaluator_;
  double temperature_;
  std::mt19937_64 rng_;
  std::string name_;
  std::optional<PlayerEval> last_;
};

// MCTS (engine/search/search.h) with a network: plays the search's best move
// (no temperature). The tree is kept from move to move of one game: the
// opponent's reply is found among the legal moves after the player's own.
class MctsPlayer final : public Player {
 public:
  // `evaluator` is shared (thread-safe). `prover` (the game's tactics, may
  // be null) must outlive the player, and so must `heuristic` (the game's
  // static evaluation for leaf_quiescence_weight, Search::SetHeuristic; may
  // be null).
  MctsPlayer(std::shared_ptr<nn::Evaluator> evaluator, const Prover* prover,
             const Heuristic* heuristic, const SearchParams& params,
             const SearchLimits& limits, uint64_t seed, std::string name);
  std::string Name() const override { return name_; }
  void NewGame() override;
  Move ChooseMove(const GameState& state) override;
  std::optional<PlayerEval> LastEval() const override { return last_eval_; }
  // With a clock a search also ends at its budget (SearchLimitsFor, as the
  // engine's `go wtime ...`), unless the limits have a fixed time.
  void SetClock(const TimeControl& clock) override { clock_ = clock; }
  const SearchResult& last_result() const { return last_result_; }

 private:
  // Whether `state` is `after_` or follows it by one legal move (then
  // played in after_ and appended to moves_).
  bool Continues(const GameState& state);

  std::shared_ptr<nn::Evaluator> evaluator_;
  Search search_;
  SearchLimits limits_;
  std::optional<TimeControl> clock_;
  std::string name_;
  std::unique_ptr<GameState> start_;  // the game's first position searched
  std::vector<Move> moves_;           // played since start_
  std::unique_ptr<GameState> after_;  // start_ after moves_
  SearchResult last_result_;
  std::optional<PlayerEval> last_eval_;
};

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_PLAYERS_H_
