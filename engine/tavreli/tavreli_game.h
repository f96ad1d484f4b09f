// Tavreli behind the game-neutral interface (engine/game/game.h).
#ifndef VOLKHV_ENGINE_TAVRELI_TAVRELI_GAME_H_
#define VOLKHV_ENGINE_TAVRELI_TAVRELI_GAME_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/tavreli/position.h"

namespace volkhv::tavreli {

// Tavreli has no options; any key is rejected.
absl::StatusOr<std::unique_ptr<Game>> MakeTavreliGame(
    const GameOptions& options);

// A game of Tavreli: the current position plus the positions before it
// (copy-make: Undo pops). Not thread-safe; see GameState.
class TavreliState final : public GameState {
 public:
  TavreliState(const GameInfo* info, const Position& start);

  const GameInfo& Info() const override { return *info_; }
  std::unique_ptr<GameState> Clone() const override;
  int SideToMove() const override { return current().SideToMove(); }
  int PliesPlayed() const override {
    return static_cast<int>(history_.size()) - 1;
  }
  void LegalMoves(MoveList* moves) const override;
  void Play(Move move) override;
  void Undo() override;
  GameResult Result() const override;
  bool InCheck() const override { return current().InCheck(); }
  uint64_t Hash() const override { return current().Hash(); }
  std::string PositionText() const override;
  std::string MoveText(Move move) const override;
  absl::StatusOr<Move> ParseMove(std::string_view text) const override;
  std::string BoardDiagram() const override;
  int PiecesOn(int square) const override { return current().Height(square); }
  uint64_t Perft(int depth) const override;

  const Position& current() const { return history_.back(); }
  int Occurrences() const override;

 private:
  const GameInfo* info_;
  std::vector<Position> history_;  // history_[0] is the start position
};

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_TAVRELI_GAME_H_
