// The registry of games: one GameModule (engine/game/game_module.h) per
// variant. Everything outside the games' own folders asks it, by the name
// a user or a record gives, and never names a game itself.
//
// Thread-safety: RegisterGame may only run before any other thread uses the
// registry (in main or a static initializer, as the tests do); everything
// else only reads it and is thread-safe.
#ifndef VOLKHV_ENGINE_GAMES_GAMES_H_
#define VOLKHV_ENGINE_GAMES_GAMES_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/game/encoder.h"
#include "engine/game/game.h"
#include "engine/game/game_module.h"
#include "engine/game/heuristic.h"
#include "engine/game/prover.h"
#include "engine/game/result.h"

namespace volkhv {

// Adds a game beyond the built-in ones (engine/games/games.cc lists those);
// dies when its name is taken or CheckGameModule refuses it (the built-in
// ones are checked too). The module lives as long as the program.
void RegisterGame(GameModule module);

// What the registry refuses in a module: no name or no make_game; a
// termination whose code is generic (IsGenericTermination: it would collide
// with a generic reason's) or is another of the module's own, or that has no
// name. The error names the module and the code.
absl::Status CheckGameModule(const GameModule& module);

// The registered games' names, the built-in ones first, in registration
// order. The views stay valid for the program's life.
std::vector<std::string_view> GameNames();
// "tavreli, tavlei9, tavlei11": GameNames() for messages and help.
std::string GameNameList();
// The game front ends play when none is named: the first built-in one.
std::string_view DefaultGameName();

// The module of a registered game, or null.
const GameModule* FindGame(std::string_view name);

// Errors name the unknown game or option.
absl::StatusOr<std::unique_ptr<Game>> MakeGame(std::string_view name,
                                               const GameOptions& options = {});

// The options of every registered game, each name once (the first game's
// entry), in registration order.
std::vector<GameOptionInfo> AllGameOptions();
// The options of `game` that it knows (a subset of `options`): lets a front
// end keep one set of option values across games.
GameOptions OptionsFor(std::string_view game, const GameOptions& options);
// "prince_max_steps=3,x=1" (keys in order); "" for no options. Records and
// [Variant] tags store options so.
std::string GameOptionsText(const GameOptions& options);
// Inverts GameOptionsText; errors name the bad item.
absl::StatusOr<GameOptions> ParseGameOptionsText(std::string_view text);

// The encoder of `game`; errors name a game without one or options out of
// range.
absl::StatusOr<std::unique_ptr<Encoder>> MakeEncoder(
    const GameInfo& game, const EncoderOptions& options);

// The alpha-beta evaluation of `game`; an error names a game without one.
// The result is immutable and thread-safe.
absl::StatusOr<std::unique_ptr<Heuristic>> MakeHeuristic(const GameInfo& game);

// The symmetries of `game` other than the identity, for `encoder` (made by
// MakeEncoder for `game`); none for an unregistered game.
absl::StatusOr<std::vector<BoardSymmetry>> GameSymmetries(
    const GameInfo& game, const Encoder& encoder);

// The movegen benchmark's positions of `game` (the start at depth 4 for an
// unregistered one).
std::vector<BenchPosition> GameBenchPositions(std::string_view game);
// The termination `termination` of the game `game`: a generic one (for any
// game) or one of the registered game's own (GameModule::terminations);
// null when neither. Valid for the program's life.
const TerminationInfo* FindTermination(std::string_view game,
                                       Termination termination);
// Its name, "checkmate" (TerminationInfo::name); "termination N" where
// FindTermination knows none.
std::string TerminationName(std::string_view game, Termination termination);
// Its name in the summaries of .vrec records (TerminationInfo::record_name,
// else the name): "fifty moves".
std::string RecordTerminationName(std::string_view game,
                                  Termination termination);

// The tactics prover of `game` for the search (engine/game/prover.h), or
// nullptr for a game without one. Valid for the program's life; thread-safe.
const Prover* GameProver(const Game& game);

// The static evaluation of `game` (MakeHeuristic) for the MCTS search's
// leaf quiescence (Search::SetHeuristic), made once per game name, or
// nullptr for a game without one. Valid for the program's life;
// thread-safe.
const Heuristic* GameHeuristic(const Game& game);

}  // namespace volkhv

#endif  // VOLKHV_ENGINE_GAMES_GAMES_H_
