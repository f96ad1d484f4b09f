// Nim's encoder and its module entry (module.h).
#include "tests/nim/module.h"

#include <algorithm>

#include "engine/game/encoder.h"
#include "engine/games/games.h"

namespace volkhv::nim {
namespace {

// Planes 2 x 1 x (stones + 1): plane 0 is 1 on the pile's square, plane 1
// all 1 when the second player is to move. Policy: (take - 1) * width +
// pile, one index per legal move.
class NimEncoder final : public Encoder {
 public:
  explicit NimEncoder(int width) : width_(width) {}

  int FormatVersion() const override { return 1; }
  InputShape Shape() const override { return {2, 1, width_}; }
  int PolicySize() const override { return kMaxTake * width_; }
  int PolicyChannels() const override { return kMaxTake; }
  void Encode(const GameState& state, float* out) const override {
    std::fill_n(out, 2 * width_, 0.0f);
    for (int square = 0; square < width_; ++square) {
      if (state.PiecesOn(square) > 0) out[square] = 1;
    }
    if (state.SideToMove() == 1) std::fill_n(out + width_, width_, 1.0f);
  }
  int PolicyIndex(const GameState& state, Move move) const override {
    return (move.from - move.to - 1) * width_ + move.from;
  }
  uint64_t CacheKey(const GameState& state) const override {
    return state.Hash();
  }

 private:
  int width_;
};

}  // namespace

GameModule Module() {
  GameModule m;
  m.name = "nim";
  m.make_game = MakeNimGame;
  m.options = {{"stones", 1, 20, 10, "Nim: stones on the pile at the start"}};
  m.make_encoder =
      [](const GameInfo& game,
         const EncoderOptions&) -> absl::StatusOr<std::unique_ptr<Encoder>> {
    return std::make_unique<NimEncoder>(game.board_width);
  };
  m.bench_positions = {{"start", "", 6}};
  m.terminations = {{kLastStoneTaken, "last stone taken", "", "",
                     "{winner} took the last stone and wins"}};
  return m;
}

bool RegisterNim() {
  static const bool registered = (RegisterGame(Module()), true);
  return registered;
}

}  // namespace volkhv::nim
