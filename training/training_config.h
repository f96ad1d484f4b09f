// The trainer's configuration (proto/training_config.proto): parsing and
// checking text-format files, the replay window and the learning-rate
// schedule. LibTorch-free; thread-safe free functions.
#ifndef VOLKHV_TRAINING_TRAINING_CONFIG_H_
#define VOLKHV_TRAINING_TRAINING_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/training_config.pb.h"

namespace volkhv::training {

// Checks every field's range (see the proto). Errors name the field:
// "batch_size: must be in [1, 65536], got 0".
absl::Status ValidateTrainingConfig(const proto::TrainingConfig& config);

// Text-format TrainingConfig. Unknown fields, syntax errors and bad values
// are errors naming the source, the line and the field.
absl::StatusOr<proto::TrainingConfig> ParseTrainingConfig(
    std::string_view text, std::string_view source_name);
absl::StatusOr<proto::TrainingConfig> ReadTrainingConfig(
    const std::string& path);

// The replay window for `total_positions` training positions (the formula
// in proto/training_config.proto): never more than total_positions.
int64_t ReplayWindowSize(const proto::TrainingConfig& config,
                         int64_t total_positions);

// The learning rate at optimiser step `step` (counted from generation 0):
// the warm-up, then the schedule.
double LearningRate(const proto::TrainingConfig& config, int64_t step);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_TRAINING_CONFIG_H_
