#include "engine/tavlei/tavlei_game.h"

#include <string>
#include <utility>
#include <vector>

#include "engine/tavlei/move_text.h"
#include "engine/tavlei/movegen.h"
#include "engine/tavlei/play_move.h"
#include "engine/tavlei/position.h"
#include "engine/tavlei/position_text.h"
#include "engine/tavlei/rules.h"

namespace volkhv {
namespace {

using tavlei::Position;
using tavlei::Rules;
using tavlei::Status;

class TavleiState final : public GameState {
 public:
  TavleiState(std::shared_ptr<const Rules> rules, const Position& position)
      : rules_(std::move(rules)), position_(position) {}

  const GameInfo& Info() const override { return rules_->info; }
  std::unique_ptr<GameState> Clone() const override {
    return std::make_unique<TavleiState>(*this);
  }
  int SideToMove() const override { return position_.side; }
  int PliesPlayed() const override { return static_cast<int>(history_.size()); }

  void LegalMoves(MoveList* moves) const override {
    moves->clear();
    tavlei::GenerateMoves(*rules_, position_, moves);
  }
  void Play(Move move) override {
    history_.push_back(position_);
    tavlei::PlayMove(*rules_, &position_, move.from, move.to, nullptr);
  }
  void Undo() override {
    position_ = history_.back();
    history_.pop_back();
  }

  GameResult Result() const override {
    if (position_.status != Status::kOngoing) {
      const bool captured = position_.status == Status::kKingCaptured;
      const int winner = captured ? tavlei::kAttackers : tavlei::kDefenders;
      return {
          position_.side == winner ? Outcome::kWin : Outcome::kLoss,
          captured ? Termination::kKingCaptured : Termination::kKingEscaped};
    }
    if (!tavlei::HasMove(*rules_, position_)) {
      return {Outcome::kLoss, Termination::kNoLegalMoves};
    }
    if (Occurrences() >= 3) return {Outcome::kDraw, Termination::kRepetition};
    return {};
  }
  bool InCheck() const override { return false; }
  uint64_t Hash() const override { return position_.hash; }

  std::string PositionText() const override {
    return tavlei::WritePosition(*rules_, position_);
  }
  std::string MoveText(Move move) const override {
    return tavlei::WriteMove(*rules_, position_, move);
  }
  absl::StatusOr<Move> ParseMove(std::string_view text) const override {
    return tavlei::ParseMoveText(*rules_, position_, text);
  }
  std::string BoardDiagram() const override {
    return tavlei::DrawBoard(*rules_, position_);
  }
  uint64_t Perft(int depth) const override {
    return tavlei::Perft(*rules_, position_, depth);
  }

 private:
  // How often the current position (pieces and side to move) has occurred
  // since this state's start, itself included. Captures cannot be undone, so
  // the search stops at the first position with more pieces.
  int Occurrences() const {
    const int pieces = position_.PieceCount();
    int count = 1;
    for (auto it = history_.rbegin(); it != history_.rend(); ++it) {
      if (it->PieceCount() != pieces) break;
      if (it->SameArrangement(position_)) ++count;
    }
    return count;
  }

  std::shared_ptr<const Rules> rules_;
  Position position_;
  std::vector<Position> history_;  // the position before each Play
};

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
