#include "engine/game/result.h"

namespace volkhv {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOngoing:
      return "ongoing";
    case Outcome::kWin:
      return "win";
    case Outcome::kDraw:
      return "draw";
    case Outcome::kLoss:
      return "loss";
  }
  return "?";
}

std::string_view TerminationName(Termination termination) {
  switch (termination) {
    case Termination::kNone:
      return "none";
    case Termination::kCheckmate:
      return "checkmate";
    case Termination::kStalemate:
      return "stalemate";
    case Termination::kRepetition:
      return "repetition";
    case Termination::kFiftyMoves:
      return "fifty-move rule";
    case Termination::kNoLegalMoves:
      return "no legal move";
    case Termination::kKingCaptured:
      return "king captured";
    case Termination::kKingEscaped:
      return "king escaped";
  }
  return "?";
}

}  // namespace volkhv
