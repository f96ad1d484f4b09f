#include "cli/game_setup.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/numbers.h"
#include "engine/game/strings.h"
#include "engine/games/games.h"
#include "engine/games/record_file.h"

namespace volkhv::cli {

std::vector<OptionSpec> GameOptionSpecs() {
  return {
      {"game", "NAME", "tavreli", "tavreli, tavlei9 or tavlei11"},
      {"prince-max-steps", "N", "",
       "Tavlei: the prince/king moves at most N squares (0 = unlimited)"},
  };
}

std::vector<OptionSpec> PositionOptionSpecs() {
  return {
      {"position", "TEXT", "",
       "start position in the game's notation "
       "(TFEN for tavreli; default: the start)"},
      {"moves", "\"M1 M2 ...\"", "", "moves played from the position"},
  };
}

absl::StatusOr<std::unique_ptr<Game>> GameFromCommandLine(
    const CommandLine& cl) {
  GameOptions options;
  if (cl.Given("prince-max-steps")) {
    absl::StatusOr<int> steps = cl.GetInt("prince-max-steps", 0, 100);
    if (!steps.ok()) return steps.status();
    options["prince_max_steps"] = *steps;
  }
  return MakeGame(cl.Get("game"), options);
}

absl::StatusOr<std::unique_ptr<Game>> GameOfRecord(const CommandLine& cl,
                                                   const RecordedGame& record) {
  const std::string tagged = record.Tag("Game");
  const std::vector<std::string_view> known = GameNames();
  if (cl.Given("game") || cl.Given("prince-max-steps") ||
      std::find(known.begin(), known.end(), tagged) == known.end()) {
    return GameFromCommandLine(cl);
  }
  GameOptions options;
  const std::string variant = record.Tag("Variant");
  if (!variant.empty() && variant != "standard") {
    for (std::string_view item : Split(variant, ",", true)) {
      const size_t eq = item.find('=');
      int value = 0;
      if (eq == std::string_view::npos ||
          !absl::SimpleAtoi(std::string(item.substr(eq + 1)), &value)) {
        return absl::InvalidArgumentError(
            Cat("[Variant \"", variant,
                "\"]: expected \"standard\" or name=integer options"));
      }
      options[std::string(Trim(item.substr(0, eq)))] = value;
    }
  }
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(tagged, options);
  if (!game.ok()) {
    return absl::InvalidArgumentError(
        Cat("[Variant \"", variant, "\"]: ", game.status().message()));
  }
  return game;
}

absl::StatusOr<std::unique_ptr<GameState>> StateFromCommandLine(
    const Game& game, const CommandLine& cl) {
  std::unique_ptr<GameState> state;
  if (cl.Get("position").empty()) {
    state = game.NewInitialState();
  } else {
    absl::StatusOr<std::unique_ptr<GameState>> parsed =
        game.NewStateFromText(cl.Get("position"));
    if (!parsed.ok()) return parsed.status();
    state = *std::move(parsed);
  }
  if (const size_t open = UnclosedComment(cl.Get("moves"));
      open != std::string_view::npos) {
    return absl::InvalidArgumentError(
        Cat("--moves: the '{' comment at character ", open + 1,
            " is never closed"));
  }
  int ply = 0;
  for (const std::string& text : SplitMoveText(cl.Get("moves"))) {
    ++ply;
    if (state->Result().IsOver()) {
      return absl::InvalidArgumentError(
          Cat("--moves, ply ", ply, " '", text, "': the game is already over"));
    }
    absl::StatusOr<Move> move = state->ParseMove(text);
    if (!move.ok()) {
      return absl::InvalidArgumentError(
          Cat("--moves, ply ", ply, ": ", move.status().message()));
    }
    state->Play(*move);
  }
  return state;
}

int Fail(const std::string& command, const absl::Status& status, int code) {
  const absl::string_view message = status.message();
  std::cerr << "volkhv " << command << ": "
            << OneLine(std::string_view(message.data(), message.size()))
            << "\n";
  return code;
}

std::optional<CommandLine> ParseOrExit(const std::string& command,
                                       const std::string& synopsis,
                                       const std::vector<std::string>& args,
                                       const std::vector<OptionSpec>& specs,
                                       int max_positional, int* exit_code) {
  absl::StatusOr<CommandLine> cl =
      CommandLine::Parse(args, specs, max_positional);
  if (!cl.ok()) {
    *exit_code = Fail(command, cl.status(), kExitUsage);
    std::cerr << "usage: " << synopsis << "\n";
    return std::nullopt;
  }
  if (cl->Flag("help")) {
    std::cout << "usage: " << synopsis << "\n" << OptionsHelp(specs);
    *exit_code = kExitOk;
    return std::nullopt;
  }
  return *std::move(cl);
}

}  // namespace volkhv::cli
