// A game of Tavlei in progress behind the game-neutral interface, declared
// here so that code needing the board itself (the network encoder) can reach
// the tavlei::Position and tavlei::Rules behind a GameState.
#ifndef VOLKHV_ENGINE_TAVLEI_TAVLEI_STATE_H_
#define VOLKHV_ENGINE_TAVLEI_TAVLEI_STATE_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/tavlei/position.h"
#include "engine/tavlei/rules.h"

namespace volkhv::tavlei {

// The current position plus the positions before it (Undo pops). Not
// thread-safe; see GameState.
class TavleiState final : public GameState {
 public:
  TavleiState(std::shared_ptr<const Rules> rules, const Position& position)
      : rules_(std::move(rules)), position_(position) {}

  const GameInfo& Info() const override { return rules_->info; }
  std::unique_ptr<GameState> Clone() const override;
  int SideToMove() const override { return position_.side; }
  int PliesPlayed() const override { return static_cast<int>(history_.size()); }

  void LegalMoves(MoveList* moves) const override;
  void Play(Move move) override;
  void Undo() override;

  GameResult Result() const override;
  bool InCheck() const override { return false; }
  uint64_t Hash() const override { return position_.hash; }

  std::string PositionText() const override;
  std::string MoveText(Move move) const override;
  absl::StatusOr<Move> ParseMove(std::string_view text) const override;
  std::string BoardDiagram() const override;
  int PiecesOn(int square) const override {
    return position_.board[square] != kEmpty;
  }
  uint64_t Perft(int depth) const override;

  const Position& position() const { return position_; }
  const Rules& rules() const { return *rules_; }
  // Pieces and side to move decide identity.
  int Occurrences() const override;

 private:
  std::shared_ptr<const Rules> rules_;
  Position position_;
  std::vector<Position> history_;  // the position before each Play
};

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_TAVLEI_STATE_H_
