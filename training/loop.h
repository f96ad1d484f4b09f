// The generation loop: generation 0 (a random net, or a given one) plays
// itself, the trainer learns from the games and writes generation 1, which
// is measured against generation 0 and plays the next games; and so on. Every
// stage leaves complete files only (atomic writes), so a killed loop restarted
// on the same run directory goes on where it stopped: no generation is lost or
// repeated and no half-written file is used.
//
// The run directory:
//   config.textproto          the LoopConfig the run was started with
//   nets/gen-NNNN.net         the network of each generation
//   games/gen-NNNN-*.vrec     self-play records of generation N's net
//   selfplay/gen-NNNN.textproto  timing of the self-play runs (summed)
//   train/checkpoint          the trainer's checkpoint (resumes exactly)
//   train/log.csv             the trainer's log, every log interval
//   train/gen-NNNN.textproto  the training summary of generation N's net
//   eval/gen-NNNN.pgn         the evaluation games of generation N
//   generations/gen-NNNN.textproto  what the loop measured (GenerationRecord)
//   generations/gen-NNNN.spent.textproto  the time stopped loops spent on
//                             a generation not recorded yet (GenerationSpent)
//   metrics.csv, report.html  one row / point per generation
//   final.textproto, eval/final.pgn  the finished run's last net against
//                             generation 0 and the random player
//   lock                      held by the running loop (training/run_lock.h)
// With external_selfplay (training/external_selfplay.h) also
//   nets/latest.textproto     what the self-play workers are to play
//   incoming/                 the workers' record files, before the loop
//                             takes them into games/
#ifndef VOLKHV_TRAINING_LOOP_H_
#define VOLKHV_TRAINING_LOOP_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "nn/evaluator.h"
#include "proto/loop_config.pb.h"
#include "proto/loop_state.pb.h"
#include "training/loop_budget.h"

namespace volkhv::training {

struct LoopOptions {
  std::string run_dir;
  // The config to run with. Without one, the run directory's. With one
  // and a run directory that has a different one: an error (a run keeps
  // its config).
  std::optional<proto::LoopConfig> config;
  // A net to start a new run from (`volkhv loop --net-in`): generation 0 is
  // this net instead of a random one of config.network, so its architecture
  // is the run's. It must fit the run's game (nn::CheckNetworkFits); its
  // provenance is kept, with the note naming the file, so that `volkhv net
  // bundle` counts the games and hours it was trained with. Given for a run
  // that already has a generation 0, that net must have the same weights.
  // Empty: a random net.
  std::string start_net;
  // With start_net: a directory of game records (the games/ of the run the
  // net came from) copied into the new run's games/ as `earlier-FILE`,
  // names that sort before the run's own, so the replay window holds them
  // as its oldest games from the first generation on. Every file must read
  // and at least one game must be of the run's game. Used only when
  // generation 0 is made; a continued run ignores it.
  std::string start_games;
  // Makes the evaluator of a net file of the run for the run's game. Empty
  // (the usual): nn::MakeEvaluator with the config's evaluator section
  // (nn/evaluator_factory.h). Either way a net is loaded once and shared by
  // self-play and the matches, and the three most recently used stay
  // loaded (a generation uses at most three).
  nn::EvaluatorFactory evaluators;
  std::function<void(const std::string&)> log;  // progress lines
  const std::atomic<bool>* stop = nullptr;      // ends the loop early
  // Stops before a generation that the budget cannot pay for (no limit by
  // default); not part of the run's config, so a run can be given more.
  LoopBudget budget;
};

// Text-format LoopConfig; unknown keys and bad values are errors naming the
// key. Every section is validated as its own command would.
absl::StatusOr<proto::LoopConfig> ParseLoopConfig(std::string_view text,
                                                  std::string_view source);
absl::StatusOr<proto::LoopConfig> ReadLoopConfig(const std::string& path);
absl::Status ValidateLoopConfig(const proto::LoopConfig& config);
// The options of the config's game: game_options, plus the deprecated
// prince_max_steps when it is set (N > 0) and game_options lacks the key.
GameOptions LoopGameOptions(const proto::LoopConfig& config);

// Runs generations until config.generations nets are trained, the budget
// is spent (training/loop_budget.h) or *stop.
// Thread-safety: one loop per run directory at a time; a second one (in
// any process) fails at once with FailedPrecondition.
absl::Status RunLoop(const LoopOptions& options);

// The finished generations of a run directory, in order.
absl::StatusOr<std::vector<proto::GenerationRecord>> ReadGenerations(
    const std::string& run_dir);

// RUN/final.textproto: the final evaluation of a finished run
// (EvaluationConfig.final_games).
std::string FinalEvaluationPath(const std::string& run_dir);
// The run's final evaluation; nullopt when it has none (yet).
absl::StatusOr<std::optional<proto::FinalEvaluation>> ReadFinalEvaluation(
    const std::string& run_dir);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_LOOP_H_
