#include "engine/tavlei/tavlei_game.h"

#include <string>
#include <utility>
#include <vector>

#include "engine/tavlei/module.h"
#include "engine/tavlei/move_text.h"
#include "engine/tavlei/movegen.h"
#include "engine/tavlei/play_move.h"
#include "engine/tavlei/position.h"
#include "engine/tavlei/position_text.h"
#include "engine/tavlei/rules.h"
#include "engine/tavlei/tavlei_state.h"

namespace volkhv {
namespace tavlei {

std::unique_ptr<GameState> TavleiState::Clone() const {
  return std::make_unique<TavleiState>(*this);
}

void TavleiState::LegalMoves(MoveList* moves) const {
  moves->clear();
  GenerateMoves(*rules_, position_, moves);
}

void TavleiState::Play(Move move) {
  history_.push_back(position_);
  PlayMove(*rules_, &position_, move.from, move.to, nullptr);
}

void TavleiState::Undo() {
  position_ = history_.back();
  history_.pop_back();
}

GameResult TavleiState::Result() const {
  if (position_.status != Status::kOngoing) {
    const bool captured = position_.status == Status::kKingCaptured;
    const int winner = captured ? kAttackers : kDefenders;
    return {position_.side == winner ? Outcome::kWin : Outcome::kLoss,
            captured ? tavlei::kKingCaptured : tavlei::kKingEscaped};
  }
  if (!HasMove(*rules_, position_)) {
    return {Outcome::kLoss, tavlei::kNoLegalMoves};
  }
  if (Occurrences() >= 3) return {Outcome::kDraw, Termination::kRepetition};
  return {};
}

std::string TavleiState::PositionText() const {
  return WritePosition(*rules_, position_);
}

std::string TavleiState::MoveText(Move move) const {
  return WriteMove(*rules_, position_, move);
}

absl::StatusOr<Move> TavleiState::ParseMove(std::string_view text) const {
  return ParseMoveText(*rules_, position_, text);
}

std::string TavleiState::BoardDiagram() const {
  return DrawBoard(*rules_, position_);
}

uint64_t TavleiState::Perft(int depth) const {
  return tavlei::Perft(*rules_, position_, depth);
}

// Captures cannot be undone, so the search stops at the first position with
// more pieces.
int TavleiState::Occurrences() const {
  const int pieces = position_.PieceCount();
  int count = 1;
  for (auto it = history_.rbegin(); it != history_.rend(); ++it) {
    if (it->PieceCount() != pieces) break;
    if (it->SameArrangement(position_)) ++count;
  }
  return count;
}

}  // namespace tavlei

namespace {

using tavlei::Position;
using tavlei::Rules;
using tavlei::TavleiState;

class TavleiGame final : public Game {
 public:
  TavleiGame(std::shared_ptr<const Rules> rules, const Position& start)
      : rules_(std::move(rules)), start_(start) {}

  const GameInfo& Info() const override { return rules_->info; }
  std::unique_ptr<GameState> NewInitialState() const override {
    return std::make_unique<TavleiState>(rules_, start_);
  }
  absl::StatusOr<std::unique_ptr<GameState>> NewStateFromText(
      std::string_view text) const override {
    absl::StatusOr<Position> position = tavlei::ParsePosition(*rules_, text);
    if (!position.ok()) return position.status();
    return std::make_unique<TavleiState>(rules_, *position);
  }

 private:
  std::shared_ptr<const Rules> rules_;
  Position start_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Game>> MakeTavleiGame(
    std::string_view name, const GameOptions& options) {
  absl::StatusOr<std::shared_ptr<const Rules>> rules =
      tavlei::MakeRules(name, options);
  if (!rules.ok()) return rules.status();
  absl::StatusOr<Position> start =
      tavlei::ParsePosition(**rules, (*rules)->start_text);
  if (!start.ok()) return start.status();
  return std::make_unique<TavleiGame>(*std::move(rules), *start);
}

}  // namespace volkhv
