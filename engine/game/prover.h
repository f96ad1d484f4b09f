// Game-specific tactics that the search may be given (as lc0 gives its
// search tablebases): quick wins found without searching every line. A game
// module may provide a Prover (engine/games/games.h: GameProver); a search
// without one (nullptr) finds the same wins by searching. Every answer is
// exact where given: a move named wins, a move marked allows the win said.
// A prover need not find every such move; "none" is always a correct answer.
#ifndef VOLKHV_ENGINE_GAME_PROVER_H_
#define VOLKHV_ENGINE_GAME_PROVER_H_

#include <cstdint>
#include <vector>

#include "engine/game/game.h"
#include "engine/game/move.h"

namespace volkhv {

// Answers about positions of the games it was made for; for a state of any
// other game it answers none (null Move, 0). Thread-safe: const and
// stateless, any number of searches may share one.
class Prover {
 public:
  virtual ~Prover() = default;

  // What the prover looks for. A kind it does not look for is answered
  // "none" every time (a null Move; MovesAllowingQuickWin marks nothing).
  struct Kinds {
    bool immediate_wins = false;  // ImmediateWin
    bool threats = false;         // UnstoppableThreat and WinInFive
    // MovesAllowingQuickWin. Tavreli does not: that is a mate search after
    // every legal move, 13 times the search's own time in a middlegame of
    // 211 moves; the search finds such a move lost when it visits it.
    bool moves_allowing_wins = false;
  };
  virtual Kinds LooksFor() const = 0;

  // A legal move that wins the game at once for the side to move, or a null
  // Move (also when the game is over). Tavlei: the prince reaching an exit,
  // the prince captured. Tavreli: a mate in one.
  virtual Move ImmediateWin(const GameState& state) const = 0;

  // A legal move after which every reply of the opponent leaves the side to
  // move an ImmediateWin (a win in three plies), or a null Move. Meaningful
  // when ImmediateWin is null. Tavlei looks at the prince's escape threats.
  virtual Move UnstoppableThreat(const GameState& state) const = 0;

  // A legal move after which every reply of the opponent leaves the side to
  // move an ImmediateWin or an UnstoppableThreat (a win in five plies at
  // most), or a null Move. Meaningful when ImmediateWin and
  // UnstoppableThreat are null.
  virtual Move WinInFive(const GameState& state) const = 0;

  // How many moves of `legal` (LegalMoves() of `state`, or some of them: a
  // search's move filter may have removed others) let the player to
  // move after them win quickly (0 when the prover does not look for them:
  // LooksFor().moves_allowing_wins). *win_plies gets one entry per move: 1 when
  // that player then has an ImmediateWin, else 3 when (only with `threats`)
  // an UnstoppableThreat, else 0 (a move that itself ends the game is 0).
  // When the count is 0, *win_plies may be left as it was.
  virtual int MovesAllowingQuickWin(const GameState& state,
                                    const MoveList& legal, bool threats,
                                    std::vector<uint8_t>* win_plies) const = 0;
};

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_PROVER_H_
