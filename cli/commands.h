// The subcommands of the `volkhv` binary. Each takes its arguments (after the
// subcommand name) and returns the exit code (see cli/game_setup.h).
#ifndef VOLKHV_CLI_COMMANDS_H_
#define VOLKHV_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace volkhv::cli {

int RunPerft(const std::vector<std::string>& args);
int RunShow(const std::vector<std::string>& args);
int RunValidate(const std::vector<std::string>& args);
int RunDemo(const std::vector<std::string>& args);
int RunBench(const std::vector<std::string>& args);
// `volkhv bench search ...` (cli/bench_search.cc).
int BenchSearch(const std::vector<std::string>& args);
// `volkhv net init|describe ...` (cli/net_commands.cc).
int RunNet(const std::vector<std::string>& args);
// `volkhv bench nn ...` (cli/bench_nn.cc).
int BenchNn(const std::vector<std::string>& args);
// `volkhv bench quiescence ...` (cli/bench_quiescence.cc).
int BenchQuiescence(const std::vector<std::string>& args);
// `volkhv engine|analysis|play|analyze` (cli/engine_commands.cc).
int RunEngine(const std::vector<std::string>& args);
int RunAnalysis(const std::vector<std::string>& args);
int RunPlay(const std::vector<std::string>& args);
int RunAnalyze(const std::vector<std::string>& args);
// `volkhv match ...` (cli/match_command.cc).
int RunMatch(const std::vector<std::string>& args);
// `volkhv elo FILE...` (cli/elo_command.cc).
int RunElo(const std::vector<std::string>& args);
// `volkhv selfplay ...` (cli/selfplay_command.cc).
int RunSelfplay(const std::vector<std::string>& args);
// `volkhv train ...` (cli/train_command.cc).
int RunTrain(const std::vector<std::string>& args);
// `volkhv loop ...` (cli/loop_command.cc).
int RunLoop(const std::vector<std::string>& args);
// `volkhv records show|stats ...` (cli/records_commands.cc).
int RunRecords(const std::vector<std::string>& args);
// `volkhv serve ...`: the web board (cli/serve_command.cc).
int RunServe(const std::vector<std::string>& args);

}  // namespace volkhv::cli

#endif  // VOLKHV_CLI_COMMANDS_H_
