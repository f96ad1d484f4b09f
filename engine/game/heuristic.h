// A hand-written static evaluation of a game, for the alpha-beta baseline
// (engine/search/alphabeta.h): a score for the side to move, which moves are
// "noisy" (searched past the horizon), and a static move-ordering score.
// Game-neutral: a game module may provide one (GameModule::make_heuristic);
// MakeHeuristic (engine/games/games.h) picks it by the game's name.
#ifndef VOLKHV_ENGINE_GAME_HEURISTIC_H_
#define VOLKHV_ENGINE_GAME_HEURISTIC_H_

#include <string_view>

#include "engine/game/game.h"

namespace volkhv {

// Evaluate() stays strictly inside (-kMaxHeuristicScore, kMaxHeuristicScore)
// so that a search can put game-theoretic (mate) scores above it.
inline constexpr int kMaxHeuristicScore = 10000;

// What the search needs to know of one legal move before playing it.
struct MoveClass {
  // Searched by quiescence past the horizon (a capture, a promotion, a move
  // that wins at once).
  bool noisy = false;
  // Higher is searched earlier (e.g. most valuable victim first). Any range;
  // only the order among the moves of one position matters.
  int order = 0;
  // For a noisy move: at most how much it can raise the mover's score (the
  // value of what it takes or promotes); quiescence skips noisy moves that
  // cannot lift the score to alpha even so. 0 for quiet moves.
  int gain = 0;
};

// Thread-safe: implementations keep no mutable state, so one Heuristic may
// serve any number of searches at once.
class Heuristic {
 public:
  virtual ~Heuristic() = default;

  // The game this heuristic evaluates ("tavreli", "tavlei9", ...).
  virtual std::string_view GameName() const = 0;

  // The value of a position that is not over (Result() ongoing), for the
  // side to move, in centipawn-like units (a Tavreli soldier or a Tavlei
  // attacker is about 100). Wins and losses by the rules are the search's
  // business, not the heuristic's. `state` must belong to GameName().
  virtual int Evaluate(const GameState& state) const = 0;

  // Classifies every move of `moves` (legal in `state`): out[i] for
  // moves[i]. `out` has room for moves.size() entries.
  virtual void ClassifyMoves(const GameState& state, const MoveList& moves,
                             MoveClass* out) const = 0;

  // The legal moves of `state` that ClassifyMoves calls noisy, in the order
  // of GameState::LegalMoves, into *noisy, and their classes into
  // noisy_classes (room for kMaxMoves): what quiescence searches when not in
  // check. This default lists and classifies every legal move; a game
  // overrides it where it can generate the noisy ones alone.
  virtual void NoisyMoves(const GameState& state, MoveList* noisy,
                          MoveClass* noisy_classes) const;

  // How many full-width plies the MCTS's leaves search with this heuristic
  // when SearchParams::leaf_search_depth is left to the game (-1): what
  // played best at equal time per move in the game (docs/search.md, "A
  // shallow search at the leaves"). Where a position has many moves a leaf
  // search costs more than it finds.
  virtual int LeafSearchDepth() const { return 0; }

  // How many plies deep the MCTS's root is searched by alpha-beta, once per
  // root, to raise its best move's prior, when
  // SearchParams::root_search_depth is left to the game (-1): what played
  // best in the game (docs/search.md, "The root's own search"). 0: none.
  virtual int RootSearchDepth() const { return 0; }
};

// Drops from *moves, in place and keeping their order, the moves that
// classes[i] calls quiet, and their classes: NoisyMoves' last step.
void KeepNoisyMoves(MoveList* moves, MoveClass* classes);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_HEURISTIC_H_
