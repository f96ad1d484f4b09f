#include "engine/tavlei/rules.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace volkhv::tavlei {
namespace {

constexpr char kTavlei9Start[] =
    "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3 a 0";
constexpr char kTavlei11Start[] =
    "3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3 a "
    "0";

constexpr int kFileStep[kNumDirections] = {0, 1, 0, -1};
constexpr int kRankStep[kNumDirections] = {1, 0, -1, 0};

void BuildGeometry(Rules* rules) {
  const int w = rules->width;
  rules->num_squares = w * w;
  rules->throne = (w / 2) * w + w / 2;
  for (int sq : {0, w - 1, w * (w - 1), w * w - 1}) rules->is_corner[sq] = true;
  for (int sq = 0; sq < rules->num_squares; ++sq) {
    const int file = sq % w;
    const int rank = sq / w;
    for (int dir = 0; dir < kNumDirections; ++dir) {
      int f = file + kFileStep[dir];
      int r = rank + kRankStep[dir];
      const bool on_board = f >= 0 && f < w && r >= 0 && r < w;
      rules->neighbor[sq][dir] =
          static_cast<int8_t>(on_board ? r * w + f : kOffBoard);
      int length = 0;
      for (; f >= 0 && f < w && r >= 0 && r < w;
           f += kFileStep[dir], r += kRankStep[dir]) {
        rules->ray[sq][dir][length++] = static_cast<uint8_t>(r * w + f);
      }
      rules->ray_length[sq][dir] = static_cast<uint8_t>(length);
      if (length > 0 && rules->is_corner[rules->ray[sq][dir][length - 1]]) {
        rules->on_corner_line[sq] = true;
      }
    }
  }
  for (int dir = 0; dir < kNumDirections; ++dir) {
    rules->next_to_throne[rules->neighbor[rules->throne][dir]] = true;
  }
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Rules>> MakeRules(
    std::string_view name, const GameOptions& options) {
  auto rules = std::make_shared<Rules>();
  if (name == "tavlei9") {
    rules->variant = Variant::kTavlei9;
    rules->width = 9;
    rules->others_pass_empty_throne = false;
    rules->king_noun = "prince";
    rules->corner_noun = "exit";
    rules->start_text = kTavlei9Start;
  } else if (name == "tavlei11") {
    rules->variant = Variant::kTavlei11;
    rules->width = 11;
    rules->others_pass_empty_throne = true;
    rules->king_noun = "king";
    rules->corner_noun = "refuge";
    rules->start_text = kTavlei11Start;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown Tavlei variant \"", std::string(name),
                     "\" (expected tavlei9 or tavlei11)"));
  }
  int max_steps = 0;
  for (const auto& [key, value] : options) {
    if (key != kPrinceMaxSteps) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option \"", key, "\" for ", std::string(name),
                       " (known: ", kPrinceMaxSteps, ")"));
    }
    if (value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("option ", kPrinceMaxSteps,
                       " must be 0 (unlimited) or positive, got ", value));
    }
    max_steps = value;
  }
  BuildGeometry(rules.get());
  rules->king_max_steps =
      max_steps == 0 ? rules->width : std::min(max_steps, rules->width);
  rules->info.name = std::string(name);
  rules->info.board_width = rules->width;
  rules->info.board_height = rules->width;
  rules->info.max_stack_height = 1;
  rules->info.first_player_name = "attackers";
  rules->info.second_player_name = "defenders";
  return std::shared_ptr<const Rules>(std::move(rules));
}

}  // namespace volkhv::tavlei
