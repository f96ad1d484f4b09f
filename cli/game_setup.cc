#include "cli/game_setup.h"

#include <algorithm>
#include <iostream>

#include "engine/games/games.h"
#include "engine/records/game_file_reader.h"
#include "engine/util/strings.h"

namespace volkhv::cli {

namespace {

// prince_max_steps -> prince-max-steps: the alias option of a game option.
std::string AliasOf(const std::string& option) {
  std::string alias = option;
  std::replace(alias.begin(), alias.end(), '_', '-');
  return alias;
}

// "a, b or c".
std::string Alternatives(const std::vector<std::string_view>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    Append(&text,
           i == 0                  ? ""
           : i + 1 == names.size() ? " or "
                                   : ", ",
           names[i]);
  }
  return text;
}

}  // namespace

std::vector<OptionSpec> GameOptionSpecs() {
  // option_names views these names: they must outlive the loop.
  const std::vector<GameOptionInfo> options = AllGameOptions();
  std::vector<std::string_view> option_names;
  std::vector<OptionSpec> aliases;
  for (const GameOptionInfo& option : options) {
    option_names.push_back(option.name);
    aliases.push_back(
        {AliasOf(option.name), "N", "",
         Cat(option.help, "; --game-option ", option.name, "=N")});
  }
  std::vector<OptionSpec> specs = {
      {"game", "NAME", std::string(DefaultGameName()),
       Alternatives(GameNames())},
      {"game-option", "KEY=VALUE", "",
       Cat("an option of the game, repeatable (",
           option_names.empty() ? "none" : Alternatives(option_names), ")")},
  };
  specs.insert(specs.end(), aliases.begin(), aliases.end());
  return specs;
}

absl::StatusOr<GameOptions> GameOptionsFromCommandLine(const CommandLine& cl) {
  GameOptions options;
  const std::vector<GameOptionInfo> known = AllGameOptions();
  for (const std::string& item : cl.GetAll("game-option")) {
    absl::StatusOr<GameOptions> parsed = ParseGameOptionsText(item);
    if (!parsed.ok() || parsed->size() != 1) {
      return absl::InvalidArgumentError(
          Cat("option '--game-option': '", item, "' is not KEY=INTEGER"));
    }
    for (const auto& [name, value] : *parsed) {
      for (const GameOptionInfo& option : known) {
        if (option.name == name && (value < option.min || value > option.max)) {
          return absl::InvalidArgumentError(
              Cat("option '--game-option': ", name, "=", value, " is not in [",
                  option.min, ", ", option.max, "]"));
        }
      }
      options[name] = value;
    }
  }
  for (const GameOptionInfo& option : known) {
    const std::string alias = AliasOf(option.name);
    if (!cl.Given(alias)) continue;
    absl::StatusOr<int> value = cl.GetInt(alias, option.min, option.max);
    if (!value.ok()) return value.status();
    options[option.name] = *value;
  }
  return options;
}

bool GameOptionsGiven(const CommandLine& cl) {
  if (cl.Given("game-option")) return true;
  for (const GameOptionInfo& option : AllGameOptions()) {
    if (cl.Given(AliasOf(option.name))) return true;
  }
  return false;
}

std::vector<OptionSpec> PositionOptionSpecs() {
  return {
      {"position", "TEXT", "",
       "start position in the game's notation "
       "(default: the start)"},
      {"moves", "\"M1 M2 ...\"", "", "moves played from the position"},
  };
}

absl::StatusOr<std::unique_ptr<Game>> GameFromCommandLine(
    const CommandLine& cl) {
  absl::StatusOr<GameOptions> options = GameOptionsFromCommandLine(cl);
  if (!options.ok()) return options.status();
  return MakeGame(cl.Get("game"), *options);
}

absl::StatusOr<std::unique_ptr<Game>> GameOfRecord(const CommandLine& cl,
                                                   const RecordedGame& record) {
  const std::string tagged = record.Tag("Game");
  const std::vector<std::string_view> known = GameNames();
  if (std::find(known.begin(), known.end(), tagged) == known.end()) {
    return GameFromCommandLine(cl);
  }
  if (cl.Given("game") && cl.Get("game") != tagged) {
    return absl::InvalidArgumentError(Cat("--game ", cl.Get("game"),
                                          " contradicts the game's [Game \"",
                                          tagged, "\"] tag"));
  }
  if (GameOptionsGiven(cl)) {
    absl::StatusOr<GameOptions> options = GameOptionsFromCommandLine(cl);
    if (!options.ok()) return options.status();
    return MakeGame(tagged, *options);
  }
  GameOptions options;
  const std::string variant = record.Tag("Variant");
  if (!variant.empty() && variant != "standard") {
    absl::StatusOr<GameOptions> parsed = ParseGameOptionsText(variant);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          Cat("[Variant \"", variant,
              "\"]: expected \"standard\" or name=integer options"));
    }
    options = *std::move(parsed);
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
