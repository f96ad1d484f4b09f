#include "engine/protocol/score.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace volkhv::protocol {

std::array<int, 3> WdlPerMille(const float wdl[3]) {
  double v[3];
  double sum = 0;
  for (int i = 0; i < 3; ++i) {
    v[i] = std::isfinite(wdl[i]) ? std::max(0.0, double{wdl[i]}) : 0.0;
    sum += v[i];
  }
  if (sum <= 0) return {0, 1000, 0};
  std::array<int, 3> out;
  double remainder[3];
  int total = 0;
  for (int i = 0; i < 3; ++i) {
    const double scaled = 1000 * v[i] / sum;
    out[i] = static_cast<int>(std::floor(scaled));
    remainder[i] = scaled - out[i];
    total += out[i];
  }
  while (total < 1000) {
    const int i = static_cast<int>(std::max_element(remainder, remainder + 3) -
                                   remainder);
    ++out[i];
    remainder[i] = -1;
    ++total;
  }
  return out;
}

std::optional<int> MateInMoves(search::Proven proven, int plies) {
  if (proven == search::Proven::kWin) return (plies + 1) / 2;
  if (proven == search::Proven::kLoss) return -((plies + 1) / 2);
  return std::nullopt;
}

std::string ProvenName(search::Proven proven) {
  switch (proven) {
    case search::Proven::kWin:
      return "win";
    case search::Proven::kDraw:
      return "draw";
    case search::Proven::kLoss:
      return "loss";
    case search::Proven::kNone:
      break;
  }
  return "";
}

std::vector<std::string> MoveTexts(const GameState& root,
                                   const std::vector<Move>& pv) {
  std::vector<std::string> texts;
  texts.reserve(pv.size());
  std::unique_ptr<GameState> state = root.Clone();
  for (Move move : pv) {
    texts.push_back(state->MoveText(move));
    state->Play(move);
  }
  return texts;
}

}  // namespace volkhv::protocol
