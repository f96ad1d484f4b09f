// volkhv: the one binary; dispatches to the subcommands in cli/commands.h.
#include <iostream>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.h"
#include "cli/game_setup.h"
#include "cli/version.h"

namespace {

constexpr char kUsage[] =
    "usage: volkhv <command> [options]   (volkhv <command> --help;\n"
    "       volkhv --version)\n"
    "commands:\n"
    "  perft      count the legal-move tree of a position\n"
    "  show       draw a position, its legal-move count and status\n"
    "  validate   replay every game of a game file through the rules\n"
    "  demo       perft and a random game\n"
    "  engine     UCI-style engine protocol on stdin/stdout\n"
    "  analysis   JSON analysis engine: one query per line on stdin\n"
    "  play       play a game against the engine in the terminal\n"
    "  analyze    top candidates for a position or every position of a game\n"
    "  serve      the web board: play and analyse in a browser\n"
    "  loop       the training loop: self-play, train, evaluate, repeat\n"
    "  selfplay   generate self-play game records\n"
    "  train      train a network on game records\n"
    "  match      play players against each other: Elo, SPRT, game files\n"
    "  elo        Elo, W/D/L and game pairs of match game files\n"
    "  net        network files: init, describe, bundle\n"
    "  records    game record files: show, stats, relabel\n"
    "  bench      benchmarks: movegen, search, nn, quiescence\n";

int Dispatch(const std::string& command, const std::vector<std::string>& args);

}  // namespace

int main(int argc, char** argv) {
  using namespace volkhv::cli;
  if (argc < 2) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  // A thread that cannot be started, or memory that runs out, is a one-line
  // error rather than an abort.
  try {
    return Dispatch(command, args);
  } catch (const std::system_error& e) {
    std::cerr << "volkhv " << command << ": cannot start a thread: " << e.what()
              << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "volkhv " << command << ": out of memory\n";
  }
  return kExitInvalidInput;
}

namespace {

int Dispatch(const std::string& command, const std::vector<std::string>& args) {
  using namespace volkhv::cli;
  if (command == "perft") return RunPerft(args);
  if (command == "show") return RunShow(args);
  if (command == "validate") return RunValidate(args);
  if (command == "demo") return RunDemo(args);
  if (command == "bench") return RunBench(args);
  if (command == "net") return RunNet(args);
  if (command == "loop") return RunLoop(args);
  if (command == "selfplay") return RunSelfplay(args);
  if (command == "train") return RunTrain(args);
  if (command == "match") return RunMatch(args);
  if (command == "elo") return RunElo(args);
  if (command == "engine") return RunEngine(args);
  if (command == "analysis") return RunAnalysis(args);
  if (command == "play") return RunPlay(args);
  if (command == "analyze") return RunAnalyze(args);
  if (command == "records") return RunRecords(args);
  if (command == "serve") return RunServe(args);
  if (command == "--version" || command == "version") {
    std::cout << "volkhv " << SourceVersion() << "\n";
    return kExitOk;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  std::cerr << "volkhv: unknown command '" << command << "'\n" << kUsage;
  return kExitUsage;
}

}  // namespace
