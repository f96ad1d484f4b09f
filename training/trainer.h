// The LibTorch trainer: trains a network on the records of a directory and
// exports the next generation's NetworkFile. This header does not include
// LibTorch.
//
// One call of the trainer (one generation of the loop, one `volkhv train`)
// runs TrainingConfig.steps optimiser steps. Each step takes a batch of
// positions sampled uniformly from the replay window (training/dataset.h),
// built ahead by background threads (training/prefetcher.h), and minimises
//   policy_loss_weight * CE(visit distribution, softmax(policy logits))
//   + value_loss_weight * CE(value target, softmax(WDL logits))
//   + moves_left_loss_weight * Huber_0.5(M / 20, plies to the end / 20)
// where the value target is the one-hot result, mixed with the searched
// root WDL by search_value_weight (validation: the result alone), and the
// last term is there only for a net with the moves-left head (M its
// output in plies; Huber with delta 0.5 on plies / kMovesLeftScale, as
// lc0's: quadratic within 10 plies, linear beyond),
// with SGD (Nesterov momentum, L2) or AdamW (decoupled weight decay); L2 /
// weight decay applies to the convolution and linear weights only.
//
// Checkpoints (TrainerOptions::checkpoint) hold the module (with batch-norm
// statistics), the optimiser state and the TrainerState
// (proto/training_config.proto: step, the call's target, the sampler's
// seed, the record files read, the CSV position, ...), written atomically.
// Creating a trainer when the checkpoint file exists resumes from it:
//   - a call that did not finish (step < target) continues exactly as if
//     it had not been interrupted: same configuration, same record files,
//     same batches (the sampler is counter-based), the same next losses;
//     CSV lines written after the checkpoint are cut;
//   - a finished call for the generation this call exports
//     (TrainerOptions::generation, or the input net's + 1): nothing is
//     left to train, Run() exports the checkpoint's net again (so a loop
//     killed between the last checkpoint and publishing the net repeats
//     nothing);
//   - otherwise a finished call is continued by a new call of `steps` more
//     steps from the checkpoint's module and optimiser state (the input net
//     then only names the parent); the architecture must be the input
//     net's.
// Without a checkpoint the module starts from the input net's weights and
// the step counter from its provenance.training_steps.
//
// Across processes (TrainerOptions::distributed, world size N > 1; c10d's
// Gloo process group, training/process_group.h): every rank runs the same
// call, N ranks as one process would. Create meets the other ranks first
// (failing after distributed.timeout_seconds if they do not all arrive).
// Then rank 0 alone reads the checkpoint and sends its bytes to every rank,
// so all resume from the same one; the module's parameters and buffers are
// then rank 0's on every rank; each rank reads the records itself, and
// takes rank 0's list of record files when its own differs; a rank whose
// configuration, step or generation differs from rank 0's fails. Each step
// every rank takes its slice of the global batch (the sampler's
// batch_size positions of the step; rank r the r-th of N equal slices, so
// batch_size must be a multiple of N), batch norms normalise with the
// statistics of the global batch (training/sync_batch_norm.h: the running
// statistics, too, are the global batch's, the same on every rank), the
// gradients are averaged over the ranks before the optimiser's step, and
// the losses logged are the global batch's. The result is one process's
// with the whole batch up to rounding. Rank 0 alone validates and writes
// the checkpoint, the CSV log and the exported net; the other ranks write
// nothing. A rank that fails or dies makes the others fail at their next
// collective; starting all ranks again resumes from rank 0's checkpoint.
//
// Thread-safety: a Trainer is used from one thread.
#ifndef VOLKHV_TRAINING_TRAINER_H_
#define VOLKHV_TRAINING_TRAINER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nn/weights_file.h"
#include "proto/training_config.pb.h"
#include "training/dataset.h"
#include "training/distributed.h"

namespace volkhv::training {

// Mean training statistics over some positions.
struct Losses {
  double policy = 0;  // policy cross-entropy (nats)
  double value = 0;   // WDL cross-entropy (nats)
  double total = 0;   // weighted sum (without L2)
  // Share of positions whose highest policy logit is the most visited move.
  double policy_accuracy = 0;
  // Share of positions whose most likely WDL outcome is the game's result.
  double value_accuracy = 0;
  // The moves-left head's Huber loss (on plies / kMovesLeftScale); 0 for
  // a net without the head.
  double moves_left = 0;
  int64_t positions = 0;
};

// One line of progress (and of the CSV log).
struct TrainProgress {
  int64_t step = 0;        // optimiser steps since generation 0
  int64_t call_done = 0;   // steps of this call done
  int64_t call_total = 0;  // steps of this call in all
  double learning_rate = 0;
  Losses train;             // averaged over the steps since the previous line
  bool moves_left = false;  // the net has the moves-left head
  bool has_validation = false;
  Losses validation;
  int64_t window_positions = 0;
  double samples_per_second = 0;  // since the previous line
  // Share of the training time since the previous line that the optimiser
  // waited for batches.
  double load_wait_share = 0;
};

struct TrainerOptions {
  proto::TrainingConfig config;  // validated by Create
  std::string records_dir;
  std::string net_in;      // the net to start from (and the parent)
  std::string checkpoint;  // "" = no checkpoints
  std::string log_csv;     // "" = no CSV log
  // Generation of the exported net; -1 = the input net's + 1.
  int generation = -1;
  // LibTorch intra-op threads of the optimiser; 0 = LibTorch's default.
  int threads = 1;
  std::string device = "cpu";  // "cpu", "cuda", "cuda:N"
  // Training across processes; world_size 1 (the default) is one process.
  DistributedOptions distributed;
  WarnFunction warn;  // default: lines to stderr
  std::function<void(const TrainProgress&)> progress;  // optional
};

struct TrainSummary {
  bool resumed = false;
  int64_t first_step = 0;         // step when this process started training
  int64_t step = 0;               // final step
  int64_t steps_run = 0;          // by this process
  int64_t positions_trained = 0;  // by all ranks together
  double load_seconds = 0;        // reading and checking the records
  double train_seconds = 0;       // wall time of the optimiser steps
  double load_wait_seconds = 0;
  double load_wait_share = 0;  // load_wait_seconds / train_seconds
  double samples_per_second = 0;
  Losses last_train;  // the last log line's
  bool has_validation = false;
  Losses validation;
  DatasetStats data;
  int generation = 0;
};

class Trainer {
 public:
  // Reads the input net and the checkpoint (if any), loads the records and
  // prepares the optimiser. Errors name the file or the option.
  static absl::StatusOr<std::unique_ptr<Trainer>> Create(
      TrainerOptions options);
  ~Trainer();

  // Runs up to `max_steps` more steps of the call (fewer at its end), with
  // the periodic checkpoints, validation and log lines; returns each step's
  // training losses.
  absl::StatusOr<std::vector<Losses>> Train(int64_t max_steps);
  // Finishes the call: trains to its end, validates, exports `net_out`,
  // writes the final checkpoint (on rank 0 only across processes).
  absl::StatusOr<TrainSummary> Run(const std::string& net_out);

  // Losses on the fixed validation sample (eval mode); positions == 0 when
  // there is no validation data (and on ranks other than 0).
  absl::StatusOr<Losses> Validate();
  // Writes the checkpoint (on ranks other than 0, nothing).
  absl::Status SaveCheckpoint();
  // The current weights under the input net's header, with provenance:
  // generation, training steps and positions, parent net, creation time.
  absl::StatusOr<nn::NetworkWeights> ExportWeights();
  // Writes ExportWeights() to `path`; on ranks other than 0, nothing.
  absl::Status Export(const std::string& path);

  bool resumed() const;
  int64_t step() const;
  int64_t target_step() const;
  bool done() const { return step() >= target_step(); }
  const proto::TrainingConfig& config() const;  // the one in effect
  const DatasetStats& data_stats() const;
  int generation() const;
  int rank() const;        // 0 in one process
  int world_size() const;  // 1 in one process

 private:
  struct Impl;
  explicit Trainer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The CSV log's header line (without the newline); a net with the
// moves-left head adds the columns train_moves_left_loss and
// val_moves_left_loss before window_positions (the timing columns stay
// last; a log without the head is the same as before the head existed).
std::string TrainingLogHeader(bool moves_left = false);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_TRAINER_H_
