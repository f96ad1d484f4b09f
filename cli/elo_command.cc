// `volkhv elo FILE...`: Elo, W/D/L and game pairs of the games in match game
// files, several matches' together (selfplay/match_tally.h).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.h"
#include "cli/game_setup.h"
#include "engine/records/game_file_reader.h"
#include "engine/util/strings.h"
#include "selfplay/match_tally.h"

namespace volkhv::cli {
namespace {

constexpr char kCommand[] = "elo";
constexpr size_t kMaxTagBytes = size_t{1} << 16;
constexpr int kMaxFiles = 10000;

// The game the first game of the file at `path` was played in (its [Game]
// and [Variant] tags, else --game).
absl::StatusOr<std::unique_ptr<Game>> GameOfFile(const CommandLine& cl,
                                                 const std::string& path) {
  if (std::error_code error; !std::filesystem::is_regular_file(path, error)) {
    return absl::NotFoundError(Cat(path, ": no such file"));
  }
  // Only the first game's tags: the games themselves are read once, by
  // ReadFinishedGames, which also leaves out an unfinished last game.
  std::ifstream in(path, std::ios::binary);
  std::string head(kMaxTagBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  const size_t start = head.find_first_not_of(" \t\r\n");
  const size_t blank =
      head.find("\n\n", start == std::string::npos ? 0 : start);
  const std::string tags =
      start == std::string::npos
          ? ""
          : head.substr(start, blank == std::string::npos ? std::string::npos
                                                          : blank - start + 1);
  absl::StatusOr<std::vector<RecordedGame>> first = ParseGameFileText(tags);
  if (!first.ok()) {
    return absl::InvalidArgumentError(
        Cat(path, ": ", first.status().message()));
  }
  if (first->empty()) {
    return absl::InvalidArgumentError(Cat(path, ": no games in it"));
  }
  absl::StatusOr<std::unique_ptr<Game>> game = GameOfRecord(cl, (*first)[0]);
  if (!game.ok()) {
    return absl::InvalidArgumentError(Cat(path, ": ", game.status().message()));
  }
  return game;
}

}  // namespace

int RunElo(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = {
      {"player", "NAME", "",
       "the player whose Elo is reported against each opponent (default: "
       "the first mover of the first game)"},
      {"sprt", "PARAMS", "",
       "elo0=E0,elo1=E1,alpha=A,beta=B[,model=normalized|logistic]: the "
       "SPRT's verdict on the games (two players only)"},
      {"trinomial", "", "",
       "Elo and SPRT from game counts instead of pentanomial pair counts"}};
  for (const OptionSpec& spec : GameOptionSpecs()) specs.push_back(spec);
  specs.push_back({"help", "", "", "print this help"});
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      kCommand,
      "volkhv elo FILE... [--player NAME] [--sprt PARAMS] [--trinomial]", args,
      specs, kMaxFiles, &code);
  if (!cl) return code;
  if (cl->positional().empty()) {
    return Fail(kCommand,
                absl::InvalidArgumentError(
                    "expected one or more game files (match --pgn-out)"),
                kExitUsage);
  }
  selfplay::TallyOptions options;
  options.player = cl->Get("player");
  options.pentanomial = !cl->Flag("trinomial");
  if (cl->Given("sprt")) {
    absl::StatusOr<selfplay::SprtParams> sprt =
        selfplay::ParseSprtParams(cl->Get("sprt"));
    if (!sprt.ok()) return Fail(kCommand, sprt.status(), kExitUsage);
    options.sprt = *sprt;
  }
  std::string game_name;
  std::string first_file;
  std::vector<selfplay::PlayedGames> files;
  for (const std::string& path : cl->positional()) {
    absl::StatusOr<std::unique_ptr<Game>> game = GameOfFile(*cl, path);
    if (!game.ok()) return Fail(kCommand, game.status(), kExitInvalidInput);
    const std::string& name = (*game)->Info().name;
    if (game_name.empty()) {
      game_name = name;
      first_file = path;
    } else if (name != game_name) {
      return Fail(kCommand,
                  absl::InvalidArgumentError(
                      Cat(path, " holds ", name, " games; ", first_file,
                          " holds ", game_name, " games")),
                  kExitInvalidInput);
    }
    absl::StatusOr<std::vector<selfplay::FinishedGame>> games =
        selfplay::ReadFinishedGames(**game, path,
                                    selfplay::UnfinishedLastGame::kSkip);
    if (!games.ok()) return Fail(kCommand, games.status(), kExitInvalidInput);
    files.push_back({path, *std::move(games)});
  }
  absl::StatusOr<selfplay::MatchReport> report =
      selfplay::TallyGames(game_name, files, options);
  if (!report.ok()) return Fail(kCommand, report.status(), kExitInvalidInput);
  std::cout << "Games: " << game_name << ", " << files.size()
            << (files.size() == 1 ? " file\n" : " files\n")
            << report->Summary();
  return kExitOk;
}

}  // namespace volkhv::cli
