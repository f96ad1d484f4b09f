// The match's outside engines: `uci:cmd=PATH,arg=...,option.NAME=VALUE,...`
// plays any program that speaks the UCI-style protocol of `volkhv engine`
// (docs/protocol.md) over its stdin and stdout. Each game starts the engine
// afresh (cutechess-cli's restart=on): `uci` until `uciok`, the game
// (`setoption name Game`, the game's options) and the spec's options, then
// `isready` until `readyok`; each move is `position ... moves ...` and `go`
// with the clocks and the spec's limits, answered by `bestmove`. An engine
// that exits, stalls or answers with no legal move makes ChooseMove fail
// (search::Player::LastFailure); the process is then killed and reaped.
#ifndef VOLKHV_SELFPLAY_UCI_PLAYER_H_
#define VOLKHV_SELFPLAY_UCI_PLAYER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/search/players.h"
#include "selfplay/engine_process.h"

namespace volkhv::selfplay {

// The settings of a `uci:` spec.
struct UciSpec {
  std::string name;               // the spec as given, or its name= value
  std::string command;            // cmd=
  std::vector<std::string> args;  // arg=, in order
  // option.NAME=VALUE, in order: `setoption name NAME value VALUE`.
  std::vector<std::pair<std::string, std::string>> options;
  uint64_t nodes = 0;       // nodes=N: `go ... nodes N`
  int64_t movetime_ms = 0;  // movetime=MS: `go ... movetime MS`
  int depth = 0;            // depth=D: `go ... depth D`
  // timeout=MS: how long the start (uciok, readyok) may take, and how long
  // past movetime a move may take when the game has no clock.
  int64_t timeout_ms = 10000;
};

// What a uci player needs from the match.
struct UciContext {
  // [Variant]: the game's options ("prince_max_steps=3"), or "standard".
  std::string variant = "standard";
  int64_t margin_ms = 0;  // --timemargin: a move's deadline is left + margin
  // When set and true, a wait for the engine ends (ChooseMove fails).
  const std::atomic<bool>* interrupt = nullptr;
};

// Parses the options of a `uci:` spec (`items`: its KEY=VALUE pairs, tc
// taken out, name= skipped); errors name the key or value at fault.
absl::StatusOr<UciSpec> ParseUciSpec(
    const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& items);

// One engine process for one game. Not thread-safe. `game` must outlive it.
class UciPlayer final : public search::Player {
 public:
  UciPlayer(std::shared_ptr<const UciSpec> spec, const Game* game,
            UciContext context);
  ~UciPlayer() override;

  std::string Name() const override { return spec_->name; }
  // Starts the engine when it is not running (the handshake); sends
  // `ucinewgame` and waits for `readyok`. A failure makes the next
  // ChooseMove fail with it.
  void NewGame() override;
  Move ChooseMove(const GameState& state) override;
  std::optional<search::PlayerEval> LastEval() const override { return eval_; }
  void SetClock(const search::TimeControl& clock) override { clock_ = clock; }
  std::string LastFailure() const override { return failure_; }

 private:
  // Starts the process and runs the handshake; "" or what went wrong.
  std::string Launch();
  // Reads lines until one starting with `word` (its text in *line);
  // "" or what went wrong (and the process is then killed).
  std::string WaitFor(const std::string& word,
                      std::chrono::steady_clock::time_point deadline,
                      std::string* line);
  // The engine is gone or useless: kill it, and say how it ended.
  std::string Fail(const std::string& what);
  // `position ...` for `state`: its game's start and the moves since
  // (found from the last call's on).
  std::string PositionCommand(const GameState& state);

  std::shared_ptr<const UciSpec> spec_;
  const Game* game_;
  UciContext context_;
  EngineProcess process_;
  std::optional<search::TimeControl> clock_;
  std::optional<search::PlayerEval> eval_;
  std::string failure_;
  std::string start_failure_;  // from NewGame, for the next ChooseMove
  // The state of the last PositionCommand and its command.
  std::unique_ptr<GameState> known_;
  std::string known_command_;
  bool known_has_moves_ = false;
};

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_UCI_PLAYER_H_
