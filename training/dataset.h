// Training data: the positions of a records directory inside the replay
// window, the train/validation split, the counter-based sampler and batch
// building. LibTorch-free.
//
// The dataset keeps compact references (game, ply) to the positions, not
// encoded planes: a batch replays each sampled game from its start to the
// ply and encodes the position with the game's encoder straight into the
// batch's buffer (and its symmetry, when augmenting).
//
// A training position is a ply of a decided game (winner set) searched with
// a full search (PlyRecord.full_search) with a non-empty visit
// distribution. Its targets:
//   policy: the visit distribution normalised to sum 1, the visits of moves
//           that share a policy index added up;
//   value:  the game's result from the side to move's view, one-hot
//           (win, draw, loss), discounted by the plies to the game's end
//           and mixed with the searched root WDL recorded at the ply as
//           BuildBatch's ValueTarget asks;
//   moves left (trained for a net with the moves-left head): the plies
//           from the position to the game's last recorded ply,
//           plies_size - ply. A game that ended by resignation,
//           adjudication or the maximum length counts the plies to that end
//           as they were played (the record holds no later plies; lc0 does
//           the same): the head learns how long the run's games last from
//           a position, not how far a theoretical end is.
#ifndef VOLKHV_TRAINING_DATASET_H_
#define VOLKHV_TRAINING_DATASET_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/game/encoder.h"
#include "engine/game/game.h"
#include "engine/game/move.h"
#include "proto/game_record.pb.h"
#include "proto/training_config.pb.h"
#include "training/symmetry.h"

namespace volkhv::training {

// Called with one line per warning (damaged files, skipped games).
using WarnFunction = std::function<void(const std::string&)>;

struct PositionRef {
  uint32_t game = 0;  // index into Dataset::games()
  uint32_t ply = 0;   // the ply's position: before plies(ply) is played
};

// One position of a batch and the symmetry applied to it (0 = none).
struct Sample {
  PositionRef ref;
  int symmetry = 0;
};

// How the value target of a position is made from its game. Plain data.
struct ValueTarget {
  // The result of a decided game, k plies before its last recorded ply:
  // W (or L) = result_discount^k, D = the rest; in (0, 1], 1 = one-hot.
  double result_discount = 1;
  // Then (1 - w - t) * that + w * the ply's root WDL + t * the root WDL
  // `td_horizon` plies later (the first later ply with one, seen from this
  // ply's side; the result where the game ends first). Plies without a root
  // WDL keep the result's share w. w, t in [0, 1], w + t <= 1.
  double search_value_weight = 0;
  double td_value_weight = 0;
  int td_horizon = 8;
};

// Per-position policy targets are sparse: up to kTargetStride (policy
// index, probability) pairs per position.
inline constexpr int kTargetStride = kMaxMoves;

// A batch in the layout the trainer hands to LibTorch (row-major, one row
// per position). Buffers are sized for `capacity` positions and reused.
struct Batch {
  void Resize(int capacity, const InputShape& shape);

  int size = 0;               // positions in the batch
  int64_t step = -1;          // the optimiser step it was sampled for
  int input_size = 0;         // floats per position
  std::vector<float> planes;  // [capacity][input_size]
  // [capacity][kTargetStride]: each row's first target_count[row] entries
  // hold the position's distinct policy indices and their probabilities;
  // the rest of the row, up to target_width, is padding (index 0, prob 0).
  std::vector<int64_t> policy_index;
  std::vector<float> policy_prob;
  std::vector<int> target_count;
  int target_width = 0;             // max(target_count) over the batch
  std::vector<int64_t> best_index;  // [capacity] the most visited index
  std::vector<float> wdl;           // [capacity][3] one-hot win/draw/loss
  std::vector<float> moves_left;    // [capacity] plies to the game's end
};

struct DatasetOptions {
  std::string records_dir;
  // Empty: every record file of the directory, damaged ones skipped with a
  // warning. Otherwise exactly these files (names within records_dir), as
  // a resumed call must see the data its checkpoint saw; a file that cannot
  // be read is then an error.
  std::vector<std::string> record_files;
  // The net's game; records of other games are skipped with a warning.
  std::string game;
  EncoderOptions encoder_options;
  // The window and the validation split.
  proto::TrainingConfig config;
};

struct DatasetStats {
  int files_read = 0;
  int files_skipped = 0;  // damaged or unreadable (warned)
  int64_t games_read = 0;
  int64_t games_other = 0;      // of another game (skipped)
  int64_t games_undecided = 0;  // no result (skipped)
  int64_t games_invalid = 0;    // illegal move or target (skipped)
  // Training positions in the directory (N of the window formula).
  int64_t total_positions = 0;
  int64_t window_positions = 0;  // W
  int64_t window_games = 0;
  int64_t train_positions = 0;
  int64_t validation_positions = 0;
};

// Immutable after Load: every const method is thread-safe.
class Dataset {
 public:
  static absl::StatusOr<std::unique_ptr<Dataset>> Load(
      const DatasetOptions& options, const WarnFunction& warn);

  const DatasetStats& stats() const { return stats_; }
  // The record files read (names within the directory), in name order.
  const std::vector<std::string>& record_files() const { return files_; }
  // The games inside the window, oldest first.
  const std::vector<proto::GameRecord>& games() const { return games_; }
  const std::vector<PositionRef>& train() const { return train_; }
  const std::vector<PositionRef>& validation() const { return validation_; }
  const Encoder& encoder() const { return *encoder_; }
  const Symmetries& symmetries() const { return *symmetries_; }

  // The positions of optimiser step `step`: batch_size uniform draws from
  // train(), each with a uniform symmetry when `augment`, from a generator
  // seeded with (seed, step) only.
  std::vector<Sample> SampleBatch(uint64_t seed, int64_t step, int batch_size,
                                  bool augment) const;
  // At most `max_positions` validation positions, a fixed sample for
  // `seed`, without symmetries, in dataset order.
  std::vector<Sample> ValidationSample(uint64_t seed, int max_positions) const;

  // Replays, encodes and writes the targets of `samples` into `batch`
  // (resized as needed), with the value target of `value`.
  absl::Status BuildBatch(const std::vector<Sample>& samples,
                          const ValueTarget& value, Batch* batch) const;

  // The state before ply `ref.ply` of a game.
  absl::StatusOr<std::unique_ptr<GameState>> StateAt(PositionRef ref) const;

  // Where a position comes from: "FILE game G ply P" (G and P 1-based, G
  // counted within its file).
  std::string Origin(PositionRef ref) const;

 private:
  Dataset() = default;
  // `result` (this ply's game result, WDL from `state`'s side to move), or
  // the root WDL of the first ply at least `horizon` plies after `ply` that
  // has one, seen from that side.
  static void FutureValue(const proto::GameRecord& record, uint32_t ply,
                          int horizon, const GameState& state,
                          const float result[3], float out[3]);
  absl::Status BuildOne(const Sample& sample, int row, const ValueTarget& value,
                        Batch* batch, std::vector<float>* scratch) const;

  DatasetStats stats_;
  std::vector<std::string> files_;
  std::vector<std::unique_ptr<Game>> game_variants_;  // one per options
  std::vector<proto::GameRecord> games_;
  std::vector<const Game*> game_of_;  // [game]: its variant
  // [game]: its file (index into files_) and 0-based index within the file.
  std::vector<std::pair<int, int>> origin_;
  std::vector<PositionRef> train_;
  std::vector<PositionRef> validation_;
  std::unique_ptr<Encoder> encoder_;
  std::unique_ptr<Symmetries> symmetries_;
};

// The limits a record must keep to be trained on (Dataset::Load skips, with
// a warning naming file, game, ply and field, a game that breaks one).
inline constexpr int kMaxRecordPlies = 100000;
inline constexpr uint32_t kMaxRecordVisits = 1u << 30;
// How far a root WDL's sum may be from 1.
inline constexpr double kWdlSumTolerance = 1e-3;

// Checks the values of a record that the rules cannot: every root_wdl has
// 3 finite probabilities in [0, 1] summing to 1 within kWdlSumTolerance,
// visits and root visits are at most kMaxRecordVisits, and the game has at
// most kMaxRecordPlies plies. Errors name the ply and field ("ply 3:
// root_wdl[1]: nan is not a probability").
absl::Status CheckRecordValues(const proto::GameRecord& record);

// Whether a ply is a training position (a full search with visits).
bool IsTrainingPly(const proto::PlyRecord& ply);
// A stable 64-bit hash of a game (game, options, start, creation time,
// moves) for the validation split.
uint64_t GameHash(const proto::GameRecord& game);
// Whether the split puts a game into the validation set.
bool IsValidationGame(const proto::GameRecord& game, double fraction);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_DATASET_H_
