// Options shared by every subcommand that works on a position: which game,
// its options, the start position and moves played from it.
#ifndef VOLKHV_CLI_GAME_SETUP_H_
#define VOLKHV_CLI_GAME_SETUP_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "engine/game/game.h"
#include "engine/records/game_file_reader.h"

namespace volkhv::cli {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalidInput = 1;
inline constexpr int kExitUsage = 2;

// --game, --game-option KEY=VALUE (repeatable) and, for each option a
// registered game has, its alias --KEY-WITH-DASHES N (e.g.
// --prince-max-steps 3 for --game-option prince_max_steps=3).
std::vector<OptionSpec> GameOptionSpecs();
// The game options given by --game-option and the aliases (an alias wins
// over --game-option); values of known options are range-checked, unknown
// keys are left to the game to refuse. Errors name the option.
absl::StatusOr<GameOptions> GameOptionsFromCommandLine(const CommandLine& cl);
// Whether any game option was given.
bool GameOptionsGiven(const CommandLine& cl);
// --position and --moves.
std::vector<OptionSpec> PositionOptionSpecs();

absl::StatusOr<std::unique_ptr<Game>> GameFromCommandLine(
    const CommandLine& cl);
// The game a recorded game is played in: the record's [Game] tag when it
// names a registered game (as `match --pgn-out` and `records show` write
// it), with the game options given on the command line, else its [Variant]
// options ("standard" or KEY=VALUE,...); a --game naming another game is an
// error naming both. Without such a tag, --game and the game options (or
// --game's default). Errors name the tag.
absl::StatusOr<std::unique_ptr<Game>> GameOfRecord(const CommandLine& cl,
                                                   const RecordedGame& record);
// The position of --position (default: the start) after --moves.
absl::StatusOr<std::unique_ptr<GameState>> StateFromCommandLine(
    const Game& game, const CommandLine& cl);

// Prints "volkhv <command>: <message>" to stderr and returns `code`.
int Fail(const std::string& command, const absl::Status& status, int code);

// Parses a subcommand's arguments. On a usage error prints it with the
// synopsis; on --help (when `specs` has it) prints the help; in both cases
// sets *exit_code and returns nothing.
std::optional<CommandLine> ParseOrExit(const std::string& command,
                                       const std::string& synopsis,
                                       const std::vector<std::string>& args,
                                       const std::vector<OptionSpec>& specs,
                                       int max_positional, int* exit_code);

}  // namespace volkhv::cli

#endif  // VOLKHV_CLI_GAME_SETUP_H_
