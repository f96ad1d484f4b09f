#include "engine/tavlei/tavlei_prover.h"

#include "engine/tavlei/immediate_win.h"
#include "engine/tavlei/tavlei_state.h"

namespace volkhv {
namespace {

using tavlei::TavleiState;

class TavleiProverImpl final : public Prover {
 public:
  Kinds LooksFor() const override {
    return {
        .immediate_wins = true, .threats = true, .moves_allowing_wins = true};
  }
  Move ImmediateWin(const GameState& state) const override {
    const TavleiState* s = Tavlei(state);
    return s ? tavlei::FindImmediateWin(s->rules(), s->position()) : Move{};
  }
  Move UnstoppableThreat(const GameState& state) const override {
    const TavleiState* s = Tavlei(state);
    return s ? tavlei::FindUnstoppableEscape(s->rules(), s->position())
             : Move{};
  }
  Move WinInFive(const GameState& state) const override {
    const TavleiState* s = Tavlei(state);
    return s ? tavlei::FindEscapeInFive(s->rules(), s->position()) : Move{};
  }
  int MovesAllowingQuickWin(const GameState& state, const MoveList& legal,
                            bool threats,
                            std::vector<uint8_t>* win_plies) const override {
    const TavleiState* s = Tavlei(state);
    if (s == nullptr) return 0;
    return tavlei::MarkMovesAllowingQuickWin(s->rules(), s->position(), legal,
                                             threats, win_plies);
  }

 private:
  static const TavleiState* Tavlei(const GameState& state) {
    return dynamic_cast<const TavleiState*>(&state);
  }
};

}  // namespace

const Prover& TavleiProver() {
  static const TavleiProverImpl* const prover = new TavleiProverImpl();
  return *prover;
}

}  // namespace volkhv
