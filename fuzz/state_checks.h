// Checks shared by the harnesses that reach a game state: everything the
// search and the protocols ask of a GameState, with the invariants that tie
// the answers together.
#ifndef VOLKHV_FUZZ_STATE_CHECKS_H_
#define VOLKHV_FUZZ_STATE_CHECKS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/game/prover.h"
#include "engine/games/games.h"
#include "engine/tavlei/module.h"
#include "fuzz/fuzz_check.h"

namespace volkhv::fuzz {

// Whether `move` is in `legal`.
inline bool IsLegal(const MoveList& legal, Move move) {
  return legal.contains(move);
}

// The text of a state reads back as the same position (same text, same
// hash, same side to move).
inline void CheckTextReadsBack(const Game& game, const GameState& state) {
  const std::string text = state.PositionText();
  absl::StatusOr<std::unique_ptr<GameState>> back = game.NewStateFromText(text);
  FUZZ_CHECK(back.ok(), text + ": " + std::string(back.status().message()));
  FUZZ_CHECK((*back)->PositionText() == text, text);
  FUZZ_CHECK((*back)->SideToMove() == state.SideToMove(), text);
}

// Queries every method of `state`, plays and takes back each legal move
// (its text must parse back to it), and checks that the answers of the
// game's prover (if it has one) are legal moves. With `text_after_moves`, the
// position after each legal move must also read back from its text.
inline void CheckState(const Game& game, GameState& state,
                       bool text_after_moves) {
  const std::string text = state.PositionText();
  const uint64_t hash = state.Hash();
  state.BoardDiagram();
  state.InCheck();
  state.Occurrences();
  const GameResult result = state.Result();
  MoveList legal;
  state.LegalMoves(&legal);
  FUZZ_CHECK(state.Perft(1) == static_cast<uint64_t>(legal.size()), text);
  for (int sq = 0; sq < state.Info().board_width * state.Info().board_height;
       ++sq) {
    const int n = state.PiecesOn(sq);
    FUZZ_CHECK(n >= 0 && n <= state.Info().max_stack_height, text);
  }
  if (legal.empty()) return;
  if (const Prover* prover = GameProver(game); prover != nullptr) {
    if (const Move win = prover->ImmediateWin(state); !win.IsNull()) {
      FUZZ_CHECK(IsLegal(legal, win), text);
    } else if (const Move threat = prover->UnstoppableThreat(state);
               !threat.IsNull()) {
      FUZZ_CHECK(IsLegal(legal, threat), text);
    } else if (const Move five = prover->WinInFive(state); !five.IsNull()) {
      FUZZ_CHECK(IsLegal(legal, five), text);
    }
    std::vector<uint8_t> win_plies;
    const int quick =
        prover->MovesAllowingQuickWin(state, legal, true, &win_plies);
    FUZZ_CHECK(quick >= 0 && quick <= static_cast<int>(legal.size()), text);
  }
  for (const Move move : legal) {
    const std::string move_text = state.MoveText(move);
    absl::StatusOr<Move> parsed = state.ParseMove(move_text);
    FUZZ_CHECK(parsed.ok() && *parsed == move, text + " " + move_text);
    state.Play(move);
    state.Result();
    state.InCheck();
    // A captured king's position has no king and does not read back.
    if (text_after_moves &&
        state.Result().termination != tavlei::kKingCaptured) {
      CheckTextReadsBack(game, state);
    }
    state.Undo();
    FUZZ_CHECK(state.Hash() == hash && state.PositionText() == text,
               text + " " + move_text);
  }
  FUZZ_CHECK(state.Result().outcome == result.outcome, text);
}

}  // namespace volkhv::fuzz

#endif  // VOLKHV_FUZZ_STATE_CHECKS_H_
