// How a game stands: ongoing, or decided (who won) and why.
#ifndef VOLKHV_ENGINE_GAME_RESULT_H_
#define VOLKHV_ENGINE_GAME_RESULT_H_

#include <string_view>

namespace volkhv {

// Outcome from the point of view of the side to move in the position.
enum class Outcome { kOngoing, kWin, kDraw, kLoss };

enum class Termination {
  kNone,          // the game goes on
  kCheckmate,     // Tavreli: in check with no legal move
  kStalemate,     // Tavreli: not in check, no legal move (draw)
  kRepetition,    // third occurrence of the same position (draw)
  kFiftyMoves,    // Tavreli: 100 plies without pawn move or capture (draw)
  kNoLegalMoves,  // Tavlei: the side to move cannot move and loses
  kKingCaptured,  // Tavlei: the prince/king was captured
  kKingEscaped,   // Tavlei: the prince/king reached an exit/refuge
};

struct GameResult {
  Outcome outcome = Outcome::kOngoing;
  Termination termination = Termination::kNone;

  bool IsOver() const { return outcome != Outcome::kOngoing; }
  friend bool operator==(const GameResult& a, const GameResult& b) {
    return a.outcome == b.outcome && a.termination == b.termination;
  }
};

std::string_view OutcomeName(Outcome outcome);
std::string_view TerminationName(Termination termination);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_RESULT_H_
