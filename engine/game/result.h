// How a game stands: ongoing, or decided (who won) and why.
#ifndef VOLKHV_ENGINE_GAME_RESULT_H_
#define VOLKHV_ENGINE_GAME_RESULT_H_

#include <string>
#include <string_view>
#include <vector>

namespace volkhv {

// Outcome from the point of view of the side to move in the position.
enum class Outcome { kOngoing, kWin, kDraw, kLoss };

// Why a game ended: a small integer code, the same in GameResult and in
// records (proto/game_record.proto: GameRecord.termination), so a code is
// never reused for another meaning. An open set: the generic reasons, which
// any game or front end may give, are named here; each game module names its
// own (GameModule::terminations, e.g. tavreli::kCheckmate in
// engine/tavreli/module.h) with codes that are not generic
// (IsGenericTermination). The registry prints them (engine/games/games.h:
// TerminationName). Codes 1, 2 and 4 are Tavreli's, 5 to 7 Tavlei's; a new
// game takes codes from kFirstFreeGameTermination up.
enum class Termination : int {
  kNone = 0,           // the game goes on
  kRepetition = 3,     // third occurrence of the same position (draw)
  kMaxLength = 8,      // adjudicated a draw at the maximum length
  kResignation = 9,    // a side resigned (or was adjudicated lost)
  kTimeForfeit = 10,   // a side ran out of time
  kAdjudication = 11,  // decided by another rule of the match, not the game
  // 12 to 31: room for more generic reasons.
};

// The first code no game or generic reason uses yet.
inline constexpr int kFirstFreeGameTermination = 32;

// The number stored for `termination` (GameRecord.termination).
constexpr int TerminationCode(Termination termination) {
  return static_cast<int>(termination);
}

// Whether `code` is a generic reason's or reserved for one: 0, 3, 8 to 31.
// A game module's codes must not be.
constexpr bool IsGenericTermination(int code) {
  return code == 0 || code == 3 || (code >= 8 && code < 32);
}

// One reason a game can end, as a game module (or this file, for the
// generic ones) declares it.
struct TerminationInfo {
  Termination termination = Termination::kNone;
  // How it is printed: game files' [Termination] tags, the engines' and the
  // web API's JSON, match tables, `show` and `validate`: "checkmate".
  std::string name;
  // What `records show`, `records stats` and self-play's summary print for
  // a .vrec record so ended, where that differs from `name` (empty: the
  // same); Tavreli's "fifty moves" predates the game files' "fifty-move
  // rule".
  std::string record_name;
  // The status `show` and `validate` print for a position that ended so
  // (empty: "draw (NAME)" or "decided (NAME)"): "checkmate".
  std::string status;
  // One line for people, with {winner} and {loser} standing for the sides'
  // names: the web board's status line, "Checkmate: {winner} wins".
  std::string description;
};

// The generic reasons, kNone first; immutable, valid for the program's life.
const std::vector<TerminationInfo>& GenericTerminations();

struct GameResult {
  Outcome outcome = Outcome::kOngoing;
  Termination termination = Termination::kNone;

  bool IsOver() const { return outcome != Outcome::kOngoing; }
  friend bool operator==(const GameResult& a, const GameResult& b) {
    return a.outcome == b.outcome && a.termination == b.termination;
  }
};

std::string_view OutcomeName(Outcome outcome);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAME_RESULT_H_
