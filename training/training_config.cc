#include "training/training_config.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "engine/util/strings.h"
#include "nn/text_proto.h"

namespace volkhv::training {
namespace {

// "0.02", "1e-05", "nan".
std::string FloatText(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

absl::Status OutOfRange(std::string_view field, std::string_view range,
                        std::string_view got) {
  return absl::InvalidArgumentError(
      Cat(field, ": must be in ", range, ", got ", got));
}

absl::Status CheckInt(std::string_view field, int64_t value, int64_t min,
                      int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return OutOfRange(field, Cat("[", min, ", ", max, "]"), Cat(value));
}

// [min, max], or (min, max] with open_min; NaN is always out.
absl::Status CheckFloat(std::string_view field, double value, double min,
                        double max, bool open_min = false,
                        bool open_max = false) {
  const bool above = open_min ? value > min : value >= min;
  const bool below = open_max ? value < max : value <= max;
  if (above && below) return absl::OkStatus();
  return OutOfRange(field,
                    Cat(open_min ? "(" : "[", FloatText(min), ", ",
                        FloatText(max), open_max ? ")" : "]"),
                    FloatText(value));
}

}  // namespace

absl::Status ValidateTrainingConfig(const proto::TrainingConfig& c) {
  constexpr int64_t kBillion = 1000000000;
  absl::Status s;
  s.Update(CheckInt("batch_size", c.batch_size(), 1, 65536));
  s.Update(CheckInt("steps", c.steps(), 0, kBillion));
  s.Update(CheckFloat("learning_rate", c.learning_rate(), 0, 10, true));
  s.Update(CheckInt("warmup_steps", c.warmup_steps(), 0, kBillion));
  s.Update(CheckInt("lr_step_interval", c.lr_step_interval(), 1, kBillion));
  s.Update(CheckFloat("lr_step_factor", c.lr_step_factor(), 0, 1, true));
  s.Update(CheckInt("lr_decay_steps", c.lr_decay_steps(), 1, kBillion));
  s.Update(CheckFloat("lr_min_fraction", c.lr_min_fraction(), 0, 1));
  s.Update(CheckFloat("momentum", c.momentum(), 0, 1, false, true));
  s.Update(CheckFloat("adam_beta2", c.adam_beta2(), 0, 1, false, true));
  s.Update(CheckFloat("weight_decay", c.weight_decay(), 0, 1));
  s.Update(CheckInt("window_min_positions", c.window_min_positions(), 1,
                    10 * kBillion));
  s.Update(CheckInt("window_max_positions", c.window_max_positions(),
                    c.window_min_positions(), 100 * kBillion));
  s.Update(CheckFloat("window_scale", c.window_scale(), 0, 1e6, true));
  s.Update(CheckFloat("window_exponent", c.window_exponent(), 0, 1, true));
  s.Update(CheckFloat("validation_fraction", c.validation_fraction(), 0, 0.5));
  s.Update(
      CheckInt("validation_positions", c.validation_positions(), 0, 10000000));
  s.Update(
      CheckInt("validation_interval", c.validation_interval(), 0, kBillion));
  s.Update(CheckFloat("policy_loss_weight", c.policy_loss_weight(), 0, 100));
  s.Update(CheckFloat("value_loss_weight", c.value_loss_weight(), 0, 100));
  s.Update(
      CheckFloat("moves_left_loss_weight", c.moves_left_loss_weight(), 0, 100));
  s.Update(CheckFloat("search_value_weight", c.search_value_weight(), 0, 1));
  s.Update(CheckFloat("result_discount", c.result_discount(), 0, 1, true));
  s.Update(CheckFloat("td_value_weight", c.td_value_weight(), 0, 1));
  s.Update(CheckInt("td_horizon_plies", c.td_horizon_plies(), 1, 1000));
  if (s.ok() && c.search_value_weight() + c.td_value_weight() > 1) {
    s = absl::InvalidArgumentError(
        Cat("search_value_weight + td_value_weight: must be at most 1, got ",
            c.search_value_weight() + c.td_value_weight()));
  }
  if (s.ok() && c.policy_loss_weight() == 0 && c.value_loss_weight() == 0) {
    s = absl::InvalidArgumentError(
        "policy_loss_weight, value_loss_weight: must not both be 0");
  }
  s.Update(CheckInt("loader_threads", c.loader_threads(), 1, 64));
  s.Update(CheckInt("prefetch_batches", c.prefetch_batches(), 1, 64));
  s.Update(
      CheckInt("checkpoint_interval", c.checkpoint_interval(), 0, kBillion));
  s.Update(CheckInt("log_interval", c.log_interval(), 1, kBillion));
  return s;
}

absl::StatusOr<proto::TrainingConfig> ParseTrainingConfig(
    std::string_view text, std::string_view source_name) {
  proto::TrainingConfig config;
  if (absl::Status s = nn::MergeTextProto(text, source_name, &config);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateTrainingConfig(config); !s.ok()) {
    return absl::InvalidArgumentError(Cat(source_name, ": ", s.message()));
  }
  return config;
}

absl::StatusOr<proto::TrainingConfig> ReadTrainingConfig(
    const std::string& path) {
  absl::StatusOr<std::string> text = nn::ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseTrainingConfig(*text, path);
}

int64_t ReplayWindowSize(const proto::TrainingConfig& config,
                         int64_t total_positions) {
  if (total_positions <= 0) return 0;
  const double grown =
      config.window_scale() *
      std::pow(static_cast<double>(total_positions), config.window_exponent());
  const double capped =
      std::min(static_cast<double>(config.window_max_positions()), grown);
  const int64_t window = std::max(config.window_min_positions(),
                                  static_cast<int64_t>(std::floor(capped)));
  return std::min(total_positions, window);
}

double LearningRate(const proto::TrainingConfig& config, int64_t step) {
  const double peak = config.learning_rate();
  const int64_t warmup = config.warmup_steps();
  if (step < warmup) {
    return peak * static_cast<double>(step + 1) / static_cast<double>(warmup);
  }
  const int64_t t = step - warmup;
  switch (config.lr_schedule()) {
    case proto::TrainingConfig::STEP:
      return peak *
             std::pow(static_cast<double>(config.lr_step_factor()),
                      static_cast<double>(t / config.lr_step_interval()));
    case proto::TrainingConfig::COSINE: {
      const double floor = peak * config.lr_min_fraction();
      const double progress =
          std::min(1.0, static_cast<double>(t) /
                            static_cast<double>(config.lr_decay_steps()));
      return floor +
             (peak - floor) * 0.5 * (1 + std::cos(std::numbers::pi * progress));
    }
    case proto::TrainingConfig::CONSTANT:
      break;
  }
  return peak;
}

}  // namespace volkhv::training
