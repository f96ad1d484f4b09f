// The hand-written Tavreli evaluation of the alpha-beta baseline: material of
// stacks counted with their buried pieces and prisoners, mobility, king
// safety, pawn advance, loose stacks and a mop-up term. Every weight is a
// named constant below; docs/search.md, "The alpha-beta baseline",
// documents them.
#ifndef VOLKHV_ENGINE_TAVRELI_HEURISTIC_H_
#define VOLKHV_ENGINE_TAVRELI_HEURISTIC_H_

#include <string_view>

#include "engine/game/heuristic.h"
#include "engine/tavreli/position.h"

namespace volkhv::tavreli {

// Piece values by movement type (K Q R B N H P); a promoted pawn is worth the
// piece it shows. The king is never captured (the search scores mate).
inline constexpr int kPieceValue[kNumPieceTypes] = {0,   950,  500, 320,
                                                    310, 1250, 100};

// How a piece beneath the top of its stack counts, in percent of its value:
// - under a top of its own colour (a reserve): it cannot move until split
//   off and becomes a prisoner if the stack is taken, so it counts
//   kReservePercent for its side;
// - under an enemy top (a prisoner): it is out of play while held, but its
//   side may free it by retaking the stack (or when the captor splits away),
//   so it still counts kPrisonerPercent for its own side and nothing for
//   the captor. Taking an enemy piece thus gains (100 - kPrisonerPercent)% of
//   its value, and taking a stack gains that of everything in it.
inline constexpr int kReservePercent = 75;
inline constexpr int kPrisonerPercent = 20;

// The terms of the evaluation, each per colour (higher is better for that
// colour); the score is the sum of a colour's terms minus the other's.
struct EvalTerms {
  int material[2] = {0, 0};     // stacks, reserves, prisoners (see above)
  int mobility[2] = {0, 0};     // destination squares of the top pieces
  int king_safety[2] = {0, 0};  // attacks near the king, pawn shield
  int pawns[2] = {0, 0};        // advance of top pawns towards promotion
  int loose[2] = {0, 0};        // stacks attacked and not defended
  int mop_up[2] = {0, 0};       // a winning side drives the king to the edge
  // The score for `color`.
  int Total(Color color) const;
};

// The evaluation of `pos` for White (positive: White is better), without the
// side-to-move bonus; fills *terms when not null. Thread-safe (pure).
int EvaluateForWhite(const Position& pos, EvalTerms* terms = nullptr);

// The score of `pos` for the side to move, as Heuristic::Evaluate.
int EvaluateForSideToMove(const Position& pos);

// The sum of the values of every piece of the stack on `square` (what a
// capture there puts under the capturer's control).
int StackValue(const Position& pos, int square);

// Heuristic for "tavreli": requires TavreliState game states. Noisy moves:
// captures (onto an enemy-topped square, en passant) and promotions,
// ordered most valuable stack first, least valuable moving unit next.
class TavreliHeuristic final : public Heuristic {
 public:
  std::string_view GameName() const override { return "tavreli"; }
  int Evaluate(const GameState& state) const override;
  void ClassifyMoves(const GameState& state, const MoveList& moves,
                     MoveClass* out) const override;
  // Classifies GenerateNoisyCandidates' moves only.
  void NoisyMoves(const GameState& state, MoveList* noisy,
                  MoveClass* noisy_classes) const override;
  int LeafSearchDepth() const override { return 1; }
  int RootSearchDepth() const override { return 4; }
};

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_HEURISTIC_H_
