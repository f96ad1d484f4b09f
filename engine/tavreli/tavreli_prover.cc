#include "engine/tavreli/tavreli_prover.h"

#include "engine/tavreli/movegen.h"
#include "engine/tavreli/tavreli_game.h"

namespace volkhv::tavreli {
namespace {

bool IsMate(const Position& after) {
  return after.InCheck() && !HasLegalMove(after);
}

class TavreliProverImpl final : public Prover {
 public:
  Kinds LooksFor() const override { return {.immediate_wins = true}; }
  Move ImmediateWin(const GameState& state) const override {
    const TavreliState* s = Tavreli(state);
    if (s == nullptr || s->Result().IsOver()) return Move{};
    return FindMateInOne(s->current());
  }
  Move UnstoppableThreat(const GameState&) const override { return Move{}; }
  Move WinInFive(const GameState&) const override { return Move{}; }
  // None marked (Kinds): the search finds such a move lost when it visits
  // it, the opponent's mate being an ImmediateWin of the new leaf.
  int MovesAllowingQuickWin(const GameState&, const MoveList&, bool /*threats*/,
                            std::vector<uint8_t>*) const override {
    return 0;
  }

 private:
  static const TavreliState* Tavreli(const GameState& state) {
    return dynamic_cast<const TavreliState*>(&state);
  }
};

}  // namespace

Move FindMateInOne(const Position& position) {
  MoveList moves;
  GenerateLegalMoves(position, &moves);
  for (const Move move : moves) {
    Position after = position;
    after.Apply(move);
    if (IsMate(after)) return move;
  }
  return Move{};
}

const Prover& TavreliProver() {
  static const TavreliProverImpl* const prover = new TavreliProverImpl();
  return *prover;
}

}  // namespace volkhv::tavreli
