// `volkhv train`: trains a network on a directory of game records and writes
// the next generation's network file (training/trainer.h).
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/game_setup.h"
#include "engine/games/games.h"
#include "engine/util/strings.h"
#include "training/distributed.h"
#include "training/trainer.h"
#include "training/training_config.h"

namespace volkhv::cli {
namespace {

constexpr char kUsage[] =
    "usage: volkhv train --game G --records DIR --net-in FILE --net-out FILE\n"
    "                    [--config FILE] [--steps N] [--batch N]\n"
    "                    [--checkpoint FILE] [--log FILE.csv] [--generation "
    "N]\n"
    "                    [--threads N] [--device cpu|cuda]\n"
    "                    [--world-size N --rank R --master ADDR:PORT]\n"
    "                    [--dist-timeout-s S] [--dist-backend gloo|nccl]\n"
    "Trains the input net on the records' replay window and writes the next\n"
    "generation. Resumes from --checkpoint when the file exists (an\n"
    "interrupted call continues exactly). Command-line values override the\n"
    "config file. With --world-size N, N processes (ranks 0..N-1, started\n"
    "alike) train together, each on a slice of every batch; without the\n"
    "flags WORLD_SIZE, RANK, MASTER_ADDR and MASTER_PORT are read. Rank 0\n"
    "writes the checkpoint, the log and the net.\n";

std::string Percent(double share) {
  return absl::StrFormat("%.1f%%", 100 * share);
}

void PrintProgress(const training::TrainProgress& p) {
  std::string line = absl::StrFormat(
      "step %d (%d/%d)  lr %.4g  loss %.4f (policy %.4f, value %.4f)  "
      "acc %s/%s",
      p.step, p.call_done, p.call_total, p.learning_rate, p.train.total,
      p.train.policy, p.train.value, Percent(p.train.policy_accuracy),
      Percent(p.train.value_accuracy));
  if (p.moves_left) {
    Append(&line, absl::StrFormat("  moves left %.4f", p.train.moves_left));
  }
  if (p.has_validation) {
    Append(&line, absl::StrFormat("  val %.4f (policy %.4f, value %.4f) "
                                  "acc %s/%s",
                                  p.validation.total, p.validation.policy,
                                  p.validation.value,
                                  Percent(p.validation.policy_accuracy),
                                  Percent(p.validation.value_accuracy)));
    if (p.moves_left) {
      Append(&line,
             absl::StrFormat(" moves left %.4f", p.validation.moves_left));
    }
  }
  Append(&line,
         absl::StrFormat("  %.0f pos/s  load wait %s", p.samples_per_second,
                         Percent(p.load_wait_share)));
  std::cout << line << std::endl;
}

void PrintSummary(const training::TrainSummary& s, const std::string& out) {
  const training::DatasetStats& d = s.data;
  std::cout << absl::StrFormat(
      "data: %d record files (%d skipped), %d games; %d training positions, "
      "window %d (%d train, %d validation) in %.1f s\n",
      d.files_read, d.files_skipped, d.games_read, d.total_positions,
      d.window_positions, d.train_positions, d.validation_positions,
      s.load_seconds);
  std::cout << absl::StrFormat(
      "trained %d steps (%d positions) in %.1f s%s: %.1f positions/s; the "
      "optimiser waited %.2f s for data (load-wait share %s)\n",
      s.steps_run, s.positions_trained, s.train_seconds,
      s.resumed ? Cat(", resumed at step ", s.first_step) : std::string(),
      s.samples_per_second, s.load_wait_seconds, Percent(s.load_wait_share));
  std::cout << absl::StrFormat(
      "final train loss %.4f (policy %.4f, value %.4f)", s.last_train.total,
      s.last_train.policy, s.last_train.value);
  if (s.has_validation) {
    std::cout << absl::StrFormat(
        "; validation loss %.4f (policy %.4f, value %.4f), policy top-1 %s, "
        "value %s",
        s.validation.total, s.validation.policy, s.validation.value,
        Percent(s.validation.policy_accuracy),
        Percent(s.validation.value_accuracy));
  }
  std::cout << absl::StrFormat("\nwrote %s: generation %d, %d training steps\n",
                               out, s.generation, s.step);
}

}  // namespace

int RunTrain(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {
      {"game", "NAME", "", Cat(GameNameList(), " (the net's game)")},
      {"records", "DIR", "", "directory of game record files (*.vrec)"},
      {"net-in", "FILE", "", "the net to train (e.g. from `volkhv net init`)"},
      {"net-out", "FILE", "", "where to write the trained net"},
      {"config", "FILE", "",
       "training config, text format (proto/training_config.proto)"},
      {"steps", "N", "", "optimiser steps (default: the config's)"},
      {"batch", "N", "", "positions per step (default: the config's)"},
      {"checkpoint", "FILE", "",
       "checkpoint file: written during training, resumed from if it exists"},
      {"log", "FILE.csv", "", "append training statistics to this CSV"},
      {"generation", "N", "", "generation of the output (default: input + 1)"},
      {"threads", "N", "1",
       "LibTorch threads of the optimiser (0 = one per core)"},
      {"device", "NAME", "cpu", "cpu, cuda or cuda:N"},
      {"world-size", "N", "1",
       "processes training together, 1..64 (else $WORLD_SIZE)"},
      {"rank", "R", "0", "this process, 0..N-1 (else $RANK)"},
      {"master", "ADDR:PORT", "",
       "where rank 0 listens for the others (else $MASTER_ADDR:$MASTER_PORT)"},
      {"dist-timeout-s", "S", "300",
       "seconds to wait for the other processes, at the start and in each "
       "exchange"},
      {"dist-backend", "NAME", "gloo",
       "gloo (the CPU backend); nccl is not built in yet"},
      {"help", "", "", "print this help"},
  };
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 0);
  if (!cl.ok()) return Fail("train", cl.status(), kExitUsage);
  if (cl->Flag("help")) {
    std::cout << kUsage << OptionsHelp(specs);
    return kExitOk;
  }
  for (const char* required : {"game", "records", "net-in", "net-out"}) {
    if (cl->Get(required).empty()) {
      return Fail("train",
                  absl::InvalidArgumentError(
                      Cat("option '--", required, "' is required")),
                  kExitUsage);
    }
  }

  proto::TrainingConfig config;
  if (cl->Given("config")) {
    absl::StatusOr<proto::TrainingConfig> read =
        training::ReadTrainingConfig(cl->Get("config"));
    if (!read.ok()) return Fail("train", read.status(), kExitInvalidInput);
    config = *read;
  }
  if (cl->Given("steps")) {
    absl::StatusOr<int> steps = cl->GetInt("steps", 0, 1000000000);
    if (!steps.ok()) return Fail("train", steps.status(), kExitUsage);
    config.set_steps(*steps);
  }
  if (cl->Given("batch")) {
    absl::StatusOr<int> batch = cl->GetInt("batch", 1, 65536);
    if (!batch.ok()) return Fail("train", batch.status(), kExitUsage);
    config.set_batch_size(*batch);
  }
  if (absl::Status s = training::ValidateTrainingConfig(config); !s.ok()) {
    return Fail("train", s, kExitInvalidInput);
  }
  absl::StatusOr<int> threads = cl->GetInt("threads", 0, 256);
  if (!threads.ok()) return Fail("train", threads.status(), kExitUsage);
  training::DistributedFlags dist_flags;
  auto given = [&](const char* name) {
    return cl->Given(name) ? cl->Get(name) : std::string();
  };
  dist_flags.world_size = given("world-size");
  dist_flags.rank = given("rank");
  dist_flags.master = given("master");
  dist_flags.timeout_s = given("dist-timeout-s");
  dist_flags.backend = given("dist-backend");
  absl::StatusOr<training::DistributedOptions> distributed =
      training::ResolveDistributedOptions(
          dist_flags, [](const char* name) { return std::getenv(name); });
  if (!distributed.ok()) {
    return Fail("train", distributed.status(), kExitUsage);
  }

  training::TrainerOptions options;
  options.config = config;
  options.records_dir = cl->Get("records");
  options.net_in = cl->Get("net-in");
  options.checkpoint = cl->Get("checkpoint");
  options.log_csv = cl->Get("log");
  options.threads = *threads;
  options.device = cl->Get("device");
  options.distributed = *distributed;
  if (cl->Given("generation")) {
    absl::StatusOr<int> generation = cl->GetInt("generation", 0, 1000000000);
    if (!generation.ok()) return Fail("train", generation.status(), kExitUsage);
    options.generation = *generation;
  }
  options.warn = [](const std::string& line) { std::cerr << line << "\n"; };
  // Across processes rank 0 speaks for all.
  if (options.distributed.rank == 0) options.progress = PrintProgress;

  // The net must be for --game.
  absl::StatusOr<nn::NetworkWeights> net =
      nn::ReadNetworkWeights(options.net_in);
  if (!net.ok()) return Fail("train", net.status(), kExitInvalidInput);
  if (net->header.game() != cl->Get("game")) {
    return Fail("train",
                absl::InvalidArgumentError(
                    Cat(options.net_in, ": the net is for ", net->header.game(),
                        ", not ", cl->Get("game"))),
                kExitInvalidInput);
  }

  absl::StatusOr<std::unique_ptr<training::Trainer>> trainer =
      training::Trainer::Create(options);
  if (!trainer.ok()) return Fail("train", trainer.status(), kExitInvalidInput);
  const training::Trainer& t = **trainer;
  const training::DatasetStats& d = t.data_stats();
  std::cout << absl::StrFormat(
      "training %s generation %d: steps %d -> %d, batch %d%s, %s, on %s%s; "
      "window %d of %d positions%s\n",
      cl->Get("game"), t.generation(), t.step(), t.target_step(),
      t.config().batch_size(),
      t.world_size() > 1
          ? absl::StrFormat(" (rank %d of %d: %d positions)", t.rank(),
                            t.world_size(),
                            t.config().batch_size() / t.world_size())
          : std::string(),
      t.config().optimizer() == proto::TrainingConfig::ADAMW ? "AdamW" : "SGD",
      options.device,
      t.config().mixed_precision() == proto::TrainingConfig::BF16
          ? " with bf16 autocast"
          : "",
      d.window_positions, d.total_positions,
      t.resumed() ? Cat(" (resumed from ", options.checkpoint, ")")
                  : std::string());
  const std::string& out = cl->Get("net-out");
  absl::StatusOr<training::TrainSummary> summary = (*trainer)->Run(out);
  if (!summary.ok()) return Fail("train", summary.status(), kExitInvalidInput);
  if (t.rank() != 0) {
    std::cout << absl::StrFormat(
        "rank %d of %d: trained %d steps to step %d; rank 0 writes %s\n",
        t.rank(), t.world_size(), summary->steps_run, summary->step, out);
    return kExitOk;
  }
  PrintSummary(*summary, out);
  return kExitOk;
}

}  // namespace volkhv::cli
