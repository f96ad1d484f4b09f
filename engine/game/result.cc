#include "engine/game/result.h"

namespace volkhv {

const std::vector<TerminationInfo>& GenericTerminations() {
  static const auto* generic = new std::vector<TerminationInfo>{
      {Termination::kNone, "none", "", "", ""},
      {Termination::kRepetition, "repetition", "", "",
       "Draw by threefold repetition"},
      {Termination::kMaxLength, "maximum length", "", "",
       "Draw at the maximum length"},
      {Termination::kResignation, "resignation", "", "", "{loser} resigned"},
      {Termination::kTimeForfeit, "time forfeit", "", "",
       "{loser} lost on time"},
      {Termination::kAdjudication, "adjudication", "", "",
       "Decided by adjudication"},
  };
  return *generic;
}

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

}  // namespace volkhv
