// The hand-written Tavlei evaluation of the alpha-beta baseline (tavlei9 and
// tavlei11): material, the prince/king's distance to the exits/refuges and
// the number of open routes to them, his freedom, the attackers pressing on
// him, and mobility. Every weight is a named constant below;
// docs/search.md, "The alpha-beta baseline", documents them.
#ifndef VOLKHV_ENGINE_TAVLEI_HEURISTIC_H_
#define VOLKHV_ENGINE_TAVLEI_HEURISTIC_H_

#include <string>
#include <string_view>

#include "engine/game/heuristic.h"
#include "engine/tavlei/position.h"
#include "engine/tavlei/rules.h"

namespace volkhv::tavlei {

// Material: the defenders are half as many, so each counts double.
inline constexpr int kAttackerValue = 100;
inline constexpr int kDefenderValue = 200;

// The terms of the evaluation, from the attackers' point of view (positive:
// good for the attackers).
struct TavleiEvalTerms {
  int material = 0;  // attackers' value minus the defenders' (king aside)
  int escape = 0;    // minus the value of the king's routes to the corners
  int freedom = 0;   // minus the squares the king can move to
  int pressure = 0;  // attackers next to the king
  int mobility = 0;  // the attackers' legal moves minus the defenders'
  int Total() const {
    return material + escape + freedom + pressure + mobility;
  }
};

// How far the king is from the exits/refuges with the board as it stands.
struct KingRoutes {
  // Corners the king could reach right now, one per open line (0 to 2).
  int open_lines = 0;
  // Open lines that no attacker can close in one move (no empty square of
  // the line, the corner aside, is one move away for an attacker).
  int unstoppable_lines = 0;
  // Fewest king moves to a corner if nobody else moved (1 when open_lines >
  // 0; kFar when more than 3 or unreachable).
  int moves = 0;
  static constexpr int kFar = 4;
};
KingRoutes FindKingRoutes(const Rules& rules, const Position& position);

// The evaluation for the attackers, without the side-to-move bonus, of an
// ongoing position; fills *terms when not null. Thread-safe (pure).
int EvaluateForAttackers(const Rules& rules, const Position& position,
                         TavleiEvalTerms* terms = nullptr);

// Heuristic for "tavlei9" and "tavlei11": requires TavleiState game states.
// Noisy moves: captures and the king's move onto a corner.
class TavleiHeuristic final : public Heuristic {
 public:
  explicit TavleiHeuristic(std::string_view game_name)
      : game_name_(game_name) {}
  std::string_view GameName() const override { return game_name_; }
  int Evaluate(const GameState& state) const override;
  void ClassifyMoves(const GameState& state, const MoveList& moves,
                     MoveClass* out) const override;
  // 1 on the 9x9 board; 0 on 11x11, where a position has about 116 moves
  // and a leaf's search lost at equal time.
  int LeafSearchDepth() const override { return game_name_ == "tavlei9"; }
  // 3 on both boards: at 800 visits against alpha-beta depth 2 it beat 0
  // and 2 on 11x11 at a quarter of 4's cost; at equal time it is within the
  // noise of 0 (docs/results.md, "The root's own search in Tavlei").
  int RootSearchDepth() const override { return 3; }

 private:
  std::string game_name_;
};

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_HEURISTIC_H_
