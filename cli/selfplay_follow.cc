#include "cli/selfplay_follow.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "absl/strings/str_format.h"
#include "cli/game_setup.h"
#include "engine/games/games.h"
#include "engine/util/strings.h"
#include "nn/evaluator_factory.h"
#include "proto/loop_config.pb.h"
#include "selfplay/selfplay.h"
#include "selfplay/worker_dir.h"
#include "training/loop.h"

namespace volkhv::cli {
namespace {

void Say(const std::string& line) {
  std::cerr << "selfplay --follow: " << line << std::endl;
}

void Sleep(double seconds, const std::atomic<bool>* stop) {
  const auto wake = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::duration<double>(seconds));
  while (!stop->load() && std::chrono::steady_clock::now() < wake) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// The net a worker plays with, replaced when the loop publishes another.
class CurrentNet {
 public:
  CurrentNet(const std::string& run_dir, const proto::EvaluatorConfig& config,
             const Game& game)
      : run_dir_(run_dir), config_(config), game_(game) {}

  absl::StatusOr<nn::Evaluator*> Get(const std::string& net_file) {
    if (net_file != name_ || evaluator_ == nullptr) {
      absl::StatusOr<std::shared_ptr<nn::Evaluator>> made =
          nn::MakeEvaluator(config_, Cat(run_dir_, "/nets/", net_file), game_);
      if (!made.ok()) return made.status();
      evaluator_ = *std::move(made);
      name_ = net_file;
    }
    return evaluator_.get();
  }

 private:
  const std::string run_dir_;
  const proto::EvaluatorConfig config_;
  const Game& game_;
  std::string name_;
  std::shared_ptr<nn::Evaluator> evaluator_;
};

// Waits for the loop's first assignment (workers may start before the
// loop), then reads the run's config. False when stopped first.
bool AwaitRun(const FollowOptions& options, const std::atomic<bool>* stop) {
  bool said = false;
  while (!stop->load()) {
    if (selfplay::ReadAssignment(options.run_dir).status().code() !=
        absl::StatusCode::kNotFound) {
      return true;
    }
    if (!said) {
      Say(Cat("waiting for the loop to publish a net in ", options.run_dir));
    }
    said = true;
    Sleep(options.poll_seconds, stop);
  }
  return false;
}

}  // namespace

int FollowRun(const FollowOptions& options, const std::atomic<bool>* stop) {
  const std::string& run = options.run_dir;
  if (!AwaitRun(options, stop)) return kExitOk;
  absl::StatusOr<proto::LoopConfig> config =
      training::ReadLoopConfig(run + "/config.textproto");
  if (!config.ok()) return Fail("selfplay", config.status(), kExitInvalidInput);
  GameOptions game_options;
  std::string record_options;
  if (config->prince_max_steps() > 0) {
    game_options["prince_max_steps"] = config->prince_max_steps();
    record_options = Cat("prince_max_steps=", config->prince_max_steps());
  }
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGame(config->game(), game_options);
  if (!game.ok()) return Fail("selfplay", game.status(), kExitInvalidInput);
  CurrentNet net(run, options.evaluator, **game);
  const int parallel =
      options.parallel.value_or(config->selfplay().parallel_games());

  int played = 0;
  int round = 0;
  int waiting_for = -2;  // the generation last reported as complete
  while (!stop->load()) {
    absl::StatusOr<proto::WorkerAssignment> assignment =
        selfplay::ReadAssignment(run);
    if (!assignment.ok()) {
      return Fail("selfplay", assignment.status(), kExitInvalidInput);
    }
    if (assignment->finished()) {
      Say(Cat("the run has finished; ", played, " games played"));
      break;
    }
    const std::string prefix =
        selfplay::GenerationPrefix(assignment->generation());
    const int have = selfplay::CountGames(selfplay::GamesDir(run), prefix) +
                     selfplay::CountGames(selfplay::IncomingDir(run), prefix);
    const int need = assignment->games() - have;
    if (need <= 0) {
      if (waiting_for != assignment->generation()) {
        Say(Cat(prefix, " has its games; waiting for the next net"));
      }
      waiting_for = assignment->generation();
      Sleep(options.poll_seconds, stop);
      continue;
    }
    absl::StatusOr<nn::Evaluator*> evaluator = net.Get(assignment->net());
    if (!evaluator.ok()) {
      return Fail("selfplay", evaluator.status(), kExitInvalidInput);
    }
    proto::SelfplayConfig round_config = config->selfplay();
    int games = std::min(need, parallel);
    if (options.max_games > 0)
      games = std::min(games, options.max_games - played);
    round_config.set_games(games);
    round_config.set_parallel_games(parallel);
    round_config.set_seed(
        options.seed.has_value() ? *options.seed + 1000003ull * round : 0);
    selfplay::SelfplayOutput output;
    output.directory = selfplay::IncomingDir(run);
    output.file_prefix = prefix;
    output.net_generation = assignment->generation();
    output.game_options = record_options;
    output.engine = "volkhv selfplay --follow";
    absl::StatusOr<selfplay::SelfplayStats> stats = selfplay::RunSelfplay(
        round_config, **game, *evaluator, output,
        [](const selfplay::SelfplayStats&) {}, stop);
    if (!stats.ok()) return Fail("selfplay", stats.status(), kExitInvalidInput);
    played += stats->games_finished;
    ++round;
    Say(absl::StrFormat("%s: %d games with %s (%.0f games/h), %d in all",
                        prefix, stats->games_finished, assignment->net(),
                        stats->GamesPerHour(), played));
    if (options.max_games > 0 && played >= options.max_games) break;
  }
  return kExitOk;
}

}  // namespace volkhv::cli
