// The alpha-beta baseline: negamax with alpha-beta (principal variation
// search), iterative deepening, a transposition table keyed by
// GameState::Hash(), move ordering (table move, noisy moves by the
// heuristic's order, killers, history), a check extension and quiescence on
// noisy moves, over the game interface and a Heuristic. Game-neutral.
#ifndef VOLKHV_ENGINE_SEARCH_ALPHABETA_H_
#define VOLKHV_ENGINE_SEARCH_ALPHABETA_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "engine/game/game.h"
#include "engine/game/heuristic.h"

namespace volkhv::search {

// A win in n plies scores kMateScore - n, a loss -(kMateScore - n); anything
// at or beyond kMateBound in absolute value is such a proven result.
inline constexpr int kMateScore = 30000;
inline constexpr int kMateBound = kMateScore - 1000;

// When Search returns: after `depth` iterations, or when `time_ms` or `nodes`
// runs out (the last completed iteration's move is played). A zero limit is
// no limit; at least one must be set. Depth 1 is always completed.
struct AlphaBetaLimits {
  int depth = 0;
  int64_t time_ms = 0;
  uint64_t nodes = 0;
};

struct AlphaBetaOptions {
  int hash_mb = 16;  // transposition table size (rounded down to 2^k entries)
  // Quiescence: noisy moves searched past the horizon, at most this many
  // plies deep (0: no quiescence; the horizon is evaluated statically).
  int quiescence_plies = 8;
  // Past quiescence_plies, captures on the square of the last capture (or
  // promotion) only, at most this many plies more (0: none).
  int recapture_plies = 0;
  // Quiescence skips a noisy move that cannot raise the score to alpha even
  // with its gain plus this margin (delta pruning).
  int delta_margin = 200;
};

struct AlphaBetaResult {
  Move best_move;    // null when the position is over (no legal move)
  int score = 0;     // for the side to move
  int depth = 0;     // iterations completed
  int seldepth = 0;  // deepest ply reached, quiescence included
  uint64_t nodes = 0;
  double seconds = 0;
  std::vector<Move> pv;  // starts with best_move

  // Plies to the end of the game when the score is proven: > 0 when the side
  // to move wins, < 0 when it loses, 0 when not proven.
  int MatePlies() const;
};

// Not thread-safe: one thread per AlphaBetaSearch (each owns its table).
// `heuristic` must outlive it and match the game searched.
class AlphaBetaSearch {
 public:
  AlphaBetaSearch(const Heuristic* heuristic, const AlphaBetaOptions& options);
  AlphaBetaSearch(const AlphaBetaSearch&) = delete;
  AlphaBetaSearch& operator=(const AlphaBetaSearch&) = delete;

  // Searches `state` (cloned; left as it is). `stop`, when not null, is read
  // and stops the search like a time limit.
  AlphaBetaResult Search(const GameState& state, const AlphaBetaLimits& limits,
                         const std::atomic<bool>* stop = nullptr);

  // The quiescence score of `state` for the side to move: its static
  // evaluation, or better what its noisy moves (captures, promotions, wins
  // at once) lead to, searched as at the horizon of Search. `state` is
  // played on and left as it was. No limit, table or history is used.
  // `best_move`, when not null, is set to the move that reaches the score
  // (a noisy move that beats standing pat, or the best evasion in check),
  // or to the null Move when standing pat is best.
  int QuiescenceScore(GameState* state, Move* best_move = nullptr);

  // Forgets the transposition table, killers and history (a new game).
  void Clear();

  const AlphaBetaOptions& options() const { return options_; }

 private:
  static constexpr int kMaxPly = 128;
  static constexpr int kHistorySquares = 128;
  enum Bound : uint8_t { kNone = 0, kUpper = 1, kLower = 2, kExact = 3 };
  struct TtEntry {
    uint64_t key = 0;
    uint32_t move = 0;  // Move::Packed(), 0 = none
    int16_t score = 0;
    int8_t depth = 0;
    uint8_t bound = kNone;  // low 2 bits; the rest is the search generation
  };
  // The moves of one ply of the current line, kept off the stack.
  struct PlyData {
    MoveList moves;
    std::array<int, kMaxMoves> scores;
    std::array<MoveClass, kMaxMoves> classes;
  };

  // Starts a search of `state` (the per-search fields below).
  void Begin(GameState* state, const AlphaBetaLimits& limits,
             const std::atomic<bool>* stop);
  int Negamax(int depth, int alpha, int beta, int ply);
  // `recapture_square`: where the move into this position captured or
  // promoted (-1: it did neither, or there was none).
  int Quiescence(int alpha, int beta, int ply, int qply, int recapture_square);
  // The score of a finished game for the side to move at `ply`.
  static int TerminalScore(const GameResult& result, int ply);
  // Brings the best-scored of data.moves[index..] to index; moves of equal
  // score stay in their generated order.
  static void PickNext(PlyData& data, int index);
  void ScoreMoves(PlyData& data, Move tt_move, int ply) const;
  // Sets aborted_ when a limit has run out (checked every few nodes).
  void CheckLimits();
  const TtEntry* Probe(uint64_t key) const;
  void Store(uint64_t key, Move move, int score, int depth, Bound bound,
             int ply);
  void UpdatePv(int ply, Move move);

  const Heuristic* heuristic_;
  AlphaBetaOptions options_;
  std::vector<TtEntry> table_;
  uint64_t mask_ = 0;
  uint8_t generation_ = 0;
  std::array<std::array<Move, 2>, kMaxPly> killers_{};
  std::vector<int> history_;    // [side][from][to]
  std::vector<PlyData> plies_;  // kMaxPly

  // Per Search.
  GameState* state_ = nullptr;
  AlphaBetaLimits limits_;
  const std::atomic<bool>* stop_ = nullptr;
  std::chrono::steady_clock::time_point start_;
  uint64_t nodes_ = 0;
  int seldepth_ = 0;
  bool aborted_ = false;
  bool can_abort_ = false;  // depth 1 always completes
  std::array<std::array<Move, kMaxPly>, kMaxPly> pv_{};
  std::array<int, kMaxPly> pv_length_{};
};

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_ALPHABETA_H_
