#include "cli/commands.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>
#include <utility>

#include "absl/strings/str_format.h"
#include "cli/game_setup.h"
#include "engine/records/game_file_reader.h"
#include "engine/util/strings.h"

namespace volkhv::cli {
namespace {

std::vector<OptionSpec> WithCommon(std::vector<OptionSpec> specs,
                                   bool position) {
  std::vector<OptionSpec> all = GameOptionSpecs();
  if (position) {
    for (OptionSpec& s : PositionOptionSpecs()) all.push_back(std::move(s));
  }
  for (OptionSpec& s : specs) all.push_back(std::move(s));
  all.push_back({"help", "", "", "print this help"});
  return all;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

int RunPerft(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs =
      WithCommon({{"depth", "N", "", "depth of the legal-move tree (required)"},
                  {"divide", "", "", "print the count below each legal move"}},
                 true);
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "perft", "volkhv perft --game G [--position P] --depth N [--divide]",
      args, specs, 0, &code);
  if (!cl) return code;
  if (!cl->Given("depth")) {
    return Fail("perft", absl::InvalidArgumentError("--depth is required"),
                kExitUsage);
  }
  absl::StatusOr<int> depth = cl->GetInt("depth", 0, 20);
  if (!depth.ok()) return Fail("perft", depth.status(), kExitUsage);
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("perft", game.status(), kExitUsage);
  absl::StatusOr<std::unique_ptr<GameState>> state =
      StateFromCommandLine(**game, *cl);
  if (!state.ok()) return Fail("perft", state.status(), kExitInvalidInput);

  const auto start = std::chrono::steady_clock::now();
  uint64_t total = 0;
  if (cl->Flag("divide") && *depth >= 1) {
    MoveList moves;
    (*state)->LegalMoves(&moves);
    std::vector<std::pair<std::string, uint64_t>> rows;
    for (Move m : moves) {
      std::string text = (*state)->MoveText(m);
      (*state)->Play(m);
      rows.emplace_back(std::move(text), (*state)->Perft(*depth - 1));
      (*state)->Undo();
    }
    std::sort(rows.begin(), rows.end());
    for (const auto& [text, count] : rows) {
      std::cout << text << ": " << count << "\n";
      total += count;
    }
    std::cout << "\nMoves: " << rows.size() << "\n";
  } else {
    total = (*state)->Perft(*depth);
  }
  const double seconds = Seconds(start);
  std::cout << absl::StrFormat("Time: %.3f s (%.0f nodes/s)\n", seconds,
                               seconds > 0 ? total / seconds : 0.0);
  std::cout << "Nodes searched: " << total << "\n";
  return kExitOk;
}

int RunShow(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = WithCommon({}, true);
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "show", "volkhv show --game G [--position P] [--moves \"M1 M2 ...\"]",
      args, specs, 0, &code);
  if (!cl) return code;
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("show", game.status(), kExitUsage);
  absl::StatusOr<std::unique_ptr<GameState>> state =
      StateFromCommandLine(**game, *cl);
  if (!state.ok()) return Fail("show", state.status(), kExitInvalidInput);
  const GameState& s = **state;
  MoveList moves;
  s.LegalMoves(&moves);
  const GameInfo& info = s.Info();
  std::cout << s.BoardDiagram() << "Position: " << s.PositionText() << "\n"
            << "To move: "
            << (s.SideToMove() == 0 ? info.first_player_name
                                    : info.second_player_name)
            << "\nLegal moves: " << moves.size() << "\n"
            << "Status: " << StatusWord(s) << "\n";
  return kExitOk;
}

int RunValidate(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = WithCommon({}, false);
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "validate", "volkhv validate [--game G] FILE", args, specs, 1, &code);
  if (!cl) return code;
  if (cl->positional().size() != 1) {
    return Fail("validate", absl::InvalidArgumentError("expected one FILE"),
                kExitUsage);
  }
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("validate", game.status(), kExitUsage);
  absl::StatusOr<std::vector<RecordedGame>> records =
      ReadGameFile(cl->positional()[0]);
  if (!records.ok()) {
    return Fail("validate", records.status(), kExitInvalidInput);
  }
  int failed = 0;
  for (size_t i = 0; i < records->size(); ++i) {
    const RecordedGame& record = (*records)[i];
    std::string name = record.Tag("Game");
    if (name.empty()) name = Cat("line ", record.first_line);
    absl::StatusOr<std::unique_ptr<Game>> played_in = GameOfRecord(*cl, record);
    if (!played_in.ok()) {
      ++failed;
      std::cout << absl::StrFormat("game %d (%s): FAILED: %s\n", i + 1, name,
                                   played_in.status().message());
      continue;
    }
    const ReplayReport report = ReplayGame(**played_in, record);
    if (report.ok) {
      std::cout << absl::StrFormat("game %d (%s): OK, %d plies, %s\n", i + 1,
                                   name, report.plies, report.status);
    } else {
      ++failed;
      std::cout << absl::StrFormat("game %d (%s): FAILED at %s\n", i + 1, name,
                                   report.error);
    }
  }
  std::cout << records->size() - failed << " of " << records->size()
            << " games legal\n";
  return failed ? kExitInvalidInput : kExitOk;
}

int RunDemo(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = WithCommon(
      {{"seed", "N", "1", "seed of the random game"},
       {"max-plies", "N", "200", "stop the random game after N plies"},
       {"perft-depth", "N", "3", "perft depths 1..N from the start"}},
      false);
  int code = 0;
  std::optional<CommandLine> cl = ParseOrExit(
      "demo", "volkhv demo [--game G] [--seed N]", args, specs, 0, &code);
  if (!cl) return code;
  absl::StatusOr<int> seed = cl->GetInt("seed", 0, 1 << 30);
  absl::StatusOr<int> max_plies = cl->GetInt("max-plies", 1, 100000);
  absl::StatusOr<int> depth = cl->GetInt("perft-depth", 0, 6);
  for (const auto* s : {&seed, &max_plies, &depth}) {
    if (!s->ok()) return Fail("demo", s->status(), kExitUsage);
  }
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("demo", game.status(), kExitUsage);
  std::unique_ptr<GameState> state = (*game)->NewInitialState();
  std::cout << "Volkhv demo: " << state->Info().name << "\n"
            << state->BoardDiagram();
  for (int d = 1; d <= *depth; ++d) {
    std::cout << "perft(" << d << ") = " << state->Perft(d) << "\n";
  }
  std::mt19937_64 rng(*seed);
  std::cout << "A random game (seed " << *seed << "):\n";
  MoveList moves;
  std::string line;
  while (!state->Result().IsOver() && state->PliesPlayed() < *max_plies) {
    state->LegalMoves(&moves);
    const Move m = moves[static_cast<int>(rng() % moves.size())];
    Append(&line,
           state->PliesPlayed() % 2 == 0
               ? Cat(state->PliesPlayed() / 2 + 1, ". ")
               : "",
           state->MoveText(m), " ");
    state->Play(m);
  }
  std::cout << line << "\n"
            << state->BoardDiagram() << "Position: " << state->PositionText()
            << "\n"
            << "After " << state->PliesPlayed()
            << " plies: " << StatusWord(*state) << "\n";
  return kExitOk;
}

}  // namespace volkhv::cli
