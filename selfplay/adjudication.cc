#include "selfplay/adjudication.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::selfplay {
namespace {

using Items = std::vector<std::pair<std::string, std::string>>;

absl::StatusOr<Items> KeyValues(std::string_view text, std::string_view what) {
  Items items;
  for (std::string_view item : Split(text, ",", true)) {
    item = Trim(item);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(
          Cat(what, ": expected key=value, got '", item, "'"));
    }
    items.emplace_back(std::string(Trim(item.substr(0, eq))),
                       std::string(Trim(item.substr(eq + 1))));
  }
  return items;
}

}  // namespace

absl::StatusOr<DrawRule> ParseDrawRule(std::string_view text) {
  absl::StatusOr<Items> items = KeyValues(text, "--draw");
  if (!items.ok()) return items.status();
  DrawRule rule;
  bool count = false, score = false;
  for (const auto& [key, value] : *items) {
    int* out = key == "movenumber"  ? &rule.move_number
               : key == "movecount" ? &rule.move_count
               : key == "score"     ? &rule.score
                                    : nullptr;
    if (out == nullptr) {
      return absl::InvalidArgumentError(Cat("--draw: unknown key '", key,
                                            "' (known: movenumber, movecount, "
                                            "score)"));
    }
    absl::StatusOr<int> x = ParseInt<int>(value, Cat("--draw: ", key),
                                          key == "movecount" ? 1 : 0, 100000);
    if (!x.ok()) return x.status();
    *out = *x;
    count |= key == "movecount";
    score |= key == "score";
  }
  if (!count || !score) {
    return absl::InvalidArgumentError(
        "--draw: give movecount=M and score=S (and movenumber=N)");
  }
  return rule;
}

absl::StatusOr<ResignRule> ParseResignRule(std::string_view text) {
  absl::StatusOr<Items> items = KeyValues(text, "--resign");
  if (!items.ok()) return items.status();
  ResignRule rule;
  bool count = false, score = false;
  for (const auto& [key, value] : *items) {
    if (key == "twosided") {
      if (value != "true" && value != "false") {
        return absl::InvalidArgumentError(
            Cat("--resign: twosided: '", value, "' is not true or false"));
      }
      rule.two_sided = value == "true";
      continue;
    }
    int* out = key == "movecount" ? &rule.move_count
               : key == "score"   ? &rule.score
                                  : nullptr;
    if (out == nullptr) {
      return absl::InvalidArgumentError(Cat("--resign: unknown key '", key,
                                            "' (known: movecount, score, "
                                            "twosided)"));
    }
    absl::StatusOr<int> x =
        ParseInt<int>(value, Cat("--resign: ", key), 1, 100000);
    if (!x.ok()) return x.status();
    *out = *x;
    count |= key == "movecount";
    score |= key == "score";
  }
  if (!count || !score) {
    return absl::InvalidArgumentError("--resign: give movecount=M and score=S");
  }
  return rule;
}

std::optional<Verdict> Adjudicator::AfterMove(
    int mover, const std::optional<search::PlayerEval>& eval, int plies) {
  // The older rule: consecutive evaluations of either player.
  if (rules_.resign_score > 0 && rules_.resign_evals > 0 && eval) {
    int ahead = -1;
    if (eval->score_cp >= rules_.resign_score) {
      ahead = mover;
    } else if (eval->score_cp <= -rules_.resign_score) {
      ahead = 1 - mover;
    }
    if (ahead < 0) {
      streak_side_ = -1;
      streak_ = 0;
    } else if (ahead == streak_side_) {
      ++streak_;
    } else {
      streak_side_ = ahead;
      streak_ = 1;
    }
    if (streak_ >= rules_.resign_evals) {
      Verdict v;
      v.kind = Verdict::Kind::kScore;
      v.first_score = streak_side_ == 0 ? 1 : 0;
      v.detail =
          Cat(rules_.resign_evals, " evaluations beyond ", rules_.resign_score);
      return v;
    }
  }

  const size_t keep = static_cast<size_t>(
      std::max(rules_.draw.move_count, rules_.resign.move_count));
  if (keep == 0) return std::nullopt;
  std::deque<int>& mine = recent_[mover];
  if (!eval) {
    mine.clear();
    return std::nullopt;
  }
  mine.push_back(eval->score_cp);
  while (mine.size() > keep) mine.pop_front();
  auto last_all = [](const std::deque<int>& d, int count, auto pred) {
    if (count <= 0 || static_cast<int>(d.size()) < count) return false;
    return std::all_of(d.end() - count, d.end(), pred);
  };

  const ResignRule& resign = rules_.resign;
  if (resign.move_count > 0 &&
      last_all(mine, resign.move_count,
               [&](int cp) { return cp <= -resign.score; }) &&
      (!resign.two_sided ||
       last_all(recent_[1 - mover], resign.move_count,
                [&](int cp) { return cp >= resign.score; }))) {
    Verdict v;
    v.kind = Verdict::Kind::kResign;
    v.first_score = mover == 0 ? 0 : 1;
    v.detail = Cat("the ", mover == 0 ? "first" : "second", " player's last ",
                   resign.move_count, " evaluations at least ", resign.score,
                   " cp below zero");
    return v;
  }

  const DrawRule& draw = rules_.draw;
  if (draw.move_count > 0 && plies / 2 >= draw.move_number) {
    auto within = [&](int cp) { return std::abs(cp) <= draw.score; };
    if (last_all(recent_[0], draw.move_count, within) &&
        last_all(recent_[1], draw.move_count, within)) {
      Verdict v;
      v.kind = Verdict::Kind::kDraw;
      v.first_score = 0.5;
      v.detail =
          Cat("both players' last ", draw.move_count, " evaluations within ",
              draw.score, " cp after move ", plies / 2);
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace volkhv::selfplay
