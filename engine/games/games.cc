#include "engine/games/games.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "absl/strings/numbers.h"
#include "engine/tavlei/module.h"
#include "engine/tavreli/module.h"
#include "engine/util/strings.h"

namespace volkhv {
namespace {

// Dies with `status` when it is an error (a module the registry refuses).
void DieUnlessOk(const absl::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "RegisterGame: %s\n",
               std::string(status.message()).c_str());
  std::abort();
}

// The registered modules; a deque keeps each module (and its name) where it
// is while more are added.
std::deque<GameModule>& Modules() {
  static auto* modules = [] {
    auto* built_in = new std::deque<GameModule>{
        // The built-in games: one line per variant.
        tavreli::Module(),
        tavlei::Module("tavlei9"),
        tavlei::Module("tavlei11"),
    };
    for (const GameModule& m : *built_in) DieUnlessOk(CheckGameModule(m));
    return built_in;
  }();
  return *modules;
}

}  // namespace

void RegisterGame(GameModule module) {
  if (FindGame(module.name) != nullptr) {
    std::fprintf(stderr, "RegisterGame: '%s' is registered already\n",
                 module.name.c_str());
    std::abort();
  }
  DieUnlessOk(CheckGameModule(module));
  Modules().push_back(std::move(module));
}

absl::Status CheckGameModule(const GameModule& module) {
  if (module.name.empty()) {
    return absl::InvalidArgumentError("game module without a name");
  }
  if (!module.make_game) {
    return absl::InvalidArgumentError(
        Cat("game '", module.name, "': no make_game"));
  }
  std::set<int> codes;
  for (const TerminationInfo& t : module.terminations) {
    const int code = TerminationCode(t.termination);
    if (IsGenericTermination(code)) {
      return absl::InvalidArgumentError(
          Cat("game '", module.name, "': termination ", code, " ('", t.name,
              "') is a generic code (0, 3, 8 to 31)"));
    }
    if (!codes.insert(code).second) {
      return absl::InvalidArgumentError(Cat("game '", module.name,
                                            "': termination ", code, " ('",
                                            t.name, "') is declared twice"));
    }
    if (t.name.empty()) {
      return absl::InvalidArgumentError(
          Cat("game '", module.name, "': termination ", code, " has no name"));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string_view> GameNames() {
  std::vector<std::string_view> names;
  for (const GameModule& m : Modules()) names.push_back(m.name);
  return names;
}

std::string GameNameList() {
  std::string list;
  for (std::string_view name : GameNames()) {
    Append(&list, list.empty() ? "" : ", ", name);
  }
  return list;
}

std::string_view DefaultGameName() { return Modules().front().name; }

const GameModule* FindGame(std::string_view name) {
  for (const GameModule& m : Modules()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<Game>> MakeGame(std::string_view name,
                                               const GameOptions& options) {
  const GameModule* module = FindGame(name);
  if (module == nullptr) {
    return absl::InvalidArgumentError(
        Cat("unknown game '", name, "' (known: ", GameNameList(), ")"));
  }
  return module->make_game(options);
}

std::vector<GameOptionInfo> AllGameOptions() {
  std::vector<GameOptionInfo> all;
  for (const GameModule& m : Modules()) {
    for (const GameOptionInfo& option : m.options) {
      bool seen = false;
      for (const GameOptionInfo& o : all) seen = seen || o.name == option.name;
      if (!seen) all.push_back(option);
    }
  }
  return all;
}

GameOptions OptionsFor(std::string_view game, const GameOptions& options) {
  GameOptions known;
  const GameModule* module = FindGame(game);
  if (module == nullptr) return known;
  for (const GameOptionInfo& option : module->options) {
    if (auto it = options.find(option.name); it != options.end()) {
      known[option.name] = it->second;
    }
  }
  return known;
}

std::string GameOptionsText(const GameOptions& options) {
  std::string text;
  for (const auto& [name, value] : options) {
    Append(&text, text.empty() ? "" : ",", name, "=", value);
  }
  return text;
}

absl::StatusOr<GameOptions> ParseGameOptionsText(std::string_view text) {
  GameOptions options;
  for (std::string_view item : Split(text, ",", true)) {
    const size_t eq = item.find('=');
    int value = 0;
    const std::string_view name =
        eq == std::string_view::npos ? item : Trim(item.substr(0, eq));
    if (eq == std::string_view::npos || name.empty() ||
        !absl::SimpleAtoi(std::string(item.substr(eq + 1)), &value)) {
      return absl::InvalidArgumentError(
          Cat("game option '", item, "': expected NAME=INTEGER"));
    }
    options[std::string(name)] = value;
  }
  return options;
}

absl::StatusOr<std::unique_ptr<Encoder>> MakeEncoder(
    const GameInfo& game, const EncoderOptions& options) {
  if (options.stack_layers < 1 || options.stack_layers > 32) {
    return absl::InvalidArgumentError(
        Cat("encoder: stack_layers must be 1..32, got ", options.stack_layers));
  }
  const GameModule* module = FindGame(game.name);
  if (module == nullptr || !module->make_encoder) {
    return absl::InvalidArgumentError(
        Cat("encoder: no encoder for game '", game.name, "'"));
  }
  return module->make_encoder(game, options);
}

absl::StatusOr<std::unique_ptr<Heuristic>> MakeHeuristic(const GameInfo& game) {
  const GameModule* module = FindGame(game.name);
  if (module == nullptr || !module->make_heuristic) {
    return absl::InvalidArgumentError(
        Cat("no alpha-beta evaluation for the game '", game.name, "'"));
  }
  return module->make_heuristic(game);
}

absl::StatusOr<std::vector<BoardSymmetry>> GameSymmetries(
    const GameInfo& game, const Encoder& encoder) {
  const GameModule* module = FindGame(game.name);
  if (module == nullptr || !module->symmetries) {
    return std::vector<BoardSymmetry>{};
  }
  return module->symmetries(game, encoder);
}

std::vector<BenchPosition> GameBenchPositions(std::string_view game) {
  const GameModule* module = FindGame(game);
  if (module == nullptr || module->bench_positions.empty()) {
    return {{"start", "", 4}};
  }
  return module->bench_positions;
}

const TerminationInfo* FindTermination(std::string_view game,
                                       Termination termination) {
  for (const TerminationInfo& t : GenericTerminations()) {
    if (t.termination == termination) return &t;
  }
  const GameModule* module = FindGame(game);
  if (module == nullptr) return nullptr;
  for (const TerminationInfo& t : module->terminations) {
    if (t.termination == termination) return &t;
  }
  return nullptr;
}

std::string TerminationName(std::string_view game, Termination termination) {
  const TerminationInfo* info = FindTermination(game, termination);
  return info != nullptr ? info->name
                         : Cat("termination ", TerminationCode(termination));
}

std::string RecordTerminationName(std::string_view game,
                                  Termination termination) {
  const TerminationInfo* info = FindTermination(game, termination);
  if (info == nullptr || info->record_name.empty()) {
    return TerminationName(game, termination);
  }
  return info->record_name;
}

const Prover* GameProver(const Game& game) {
  const GameModule* module = FindGame(game.Info().name);
  return module != nullptr ? module->prover : nullptr;
}

const Heuristic* GameHeuristic(const Game& game) {
  // One per registered game: a module's heuristic is made from GameInfo,
  // which the name determines.
  static auto* mu = new std::mutex;
  static auto* made =
      new std::map<std::string, std::unique_ptr<Heuristic>, std::less<>>();
  std::lock_guard<std::mutex> lock(*mu);
  auto it = made->find(game.Info().name);
  if (it == made->end()) {
    absl::StatusOr<std::unique_ptr<Heuristic>> heuristic =
        MakeHeuristic(game.Info());
    it = made->emplace(game.Info().name,
                       heuristic.ok() ? *std::move(heuristic) : nullptr)
             .first;
  }
  return it->second.get();
}

}  // namespace volkhv
