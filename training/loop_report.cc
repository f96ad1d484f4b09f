#include "training/loop_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "engine/util/files.h"
#include "engine/util/strings.h"

namespace volkhv::training {
namespace {

double GamesPerHour(const proto::SelfplayRunStats& s) {
  return s.wall_seconds() > 0 ? s.games() * 3600.0 / s.wall_seconds() : 0;
}
double EvalsPerSecond(const proto::SelfplayRunStats& s) {
  return s.wall_seconds() > 0 ? s.evaluations() / s.wall_seconds() : 0;
}
double NetworkShare(const proto::SelfplayRunStats& s) {
  return s.wall_seconds() > 0 ? s.network_seconds() / s.wall_seconds() : 0;
}

struct Series {
  std::string name;
  std::string color;
  std::vector<double> y;
  std::vector<double> error;  // empty: no error bars
};

// A line chart over generations 1..n.
std::string Chart(const std::string& title, const std::string& y_label,
                  const std::vector<Series>& series) {
  constexpr double kWidth = 640, kHeight = 300, kLeft = 60, kRight = 20,
                   kTop = 30, kBottom = 40;
  size_t n = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (const Series& s : series) {
    n = std::max(n, s.y.size());
    for (size_t i = 0; i < s.y.size(); ++i) {
      const double e = s.error.empty() ? 0 : s.error[i];
      lo = std::min(lo, s.y[i] - e);
      hi = std::max(hi, s.y[i] + e);
    }
  }
  std::string svg = absl::StrFormat(
      "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' "
      "font-family='sans-serif' font-size='12'>\n<text x='%.0f' y='18' "
      "font-size='14'>%s</text>\n",
      kWidth, kHeight, kLeft, title);
  if (n == 0) return svg + "<text x='60' y='60'>no data yet</text></svg>\n";
  if (hi - lo < 1e-9) {
    hi += 1;
    lo -= 1;
  }
  const double pad = 0.05 * (hi - lo);
  lo -= pad;
  hi += pad;
  auto x_of = [&](size_t i) {
    return kLeft + (n == 1 ? 0.5 : static_cast<double>(i) / (n - 1)) *
                       (kWidth - kLeft - kRight);
  };
  auto y_of = [&](double y) {
    return kTop + (hi - y) / (hi - lo) * (kHeight - kTop - kBottom);
  };
  Append(&svg, absl::StrFormat(
                   "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' "
                   "stroke='black'/>\n<line x1='%.0f' y1='%.0f' x2='%.0f' "
                   "y2='%.0f' stroke='black'/>\n",
                   kLeft, kTop, kLeft, kHeight - kBottom, kLeft,
                   kHeight - kBottom, kWidth - kRight, kHeight - kBottom));
  for (int t = 0; t <= 4; ++t) {
    const double v = lo + (hi - lo) * t / 4;
    Append(&svg, absl::StrFormat(
                     "<text x='%.0f' y='%.0f' text-anchor='end'>%.3g</text>\n",
                     kLeft - 4, y_of(v) + 4, v));
  }
  for (size_t i = 0; i < n; ++i) {
    if (n > 12 && i % ((n + 11) / 12) != 0) continue;
    Append(&svg, absl::StrFormat(
                     "<text x='%.0f' y='%.0f' text-anchor='middle'>%d</text>\n",
                     x_of(i), kHeight - kBottom + 16, static_cast<int>(i) + 1));
  }
  Append(&svg, absl::StrFormat(
                   "<text x='%.0f' y='%.0f' text-anchor='middle'>generation"
                   "</text>\n<text x='14' y='%.0f' transform='rotate(-90 14 "
                   "%.0f)' text-anchor='middle'>%s</text>\n",
                   (kLeft + kWidth - kRight) / 2, kHeight - 6,
                   (kTop + kHeight - kBottom) / 2,
                   (kTop + kHeight - kBottom) / 2, y_label));
  double legend_x = kLeft + 10;
  for (const Series& s : series) {
    std::string points;
    for (size_t i = 0; i < s.y.size(); ++i) {
      Append(&points, absl::StrFormat("%.1f,%.1f ", x_of(i), y_of(s.y[i])));
      if (!s.error.empty()) {
        Append(&svg,
               absl::StrFormat("<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                               "stroke='%s' opacity='0.5'/>\n",
                               x_of(i), y_of(s.y[i] - s.error[i]), x_of(i),
                               y_of(s.y[i] + s.error[i]), s.color));
      }
      Append(&svg,
             absl::StrFormat("<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>\n",
                             x_of(i), y_of(s.y[i]), s.color));
    }
    Append(&svg, absl::StrFormat(
                     "<polyline points='%s' fill='none' stroke='%s'/>\n"
                     "<text x='%.0f' y='%.0f' fill='%s'>%s</text>\n",
                     points, s.color, legend_x, kTop + 12, s.color, s.name));
    legend_x += 14 + 7 * s.name.size();
  }
  return svg + "</svg>\n";
}

}  // namespace

absl::Status WriteMetricsCsv(const std::vector<proto::GenerationRecord>& rows,
                             const std::string& path) {
  std::string csv =
      "generation,net,selfplay_net,accepted,games,plies,average_plies,"
      "training_positions,first_wins,second_wins,draws,selfplay_seconds,"
      "games_per_hour,evals_per_second,network_share,false_resigns,"
      "train_step,policy_loss,value_loss,validation_policy_loss,"
      "validation_value_loss,policy_accuracy,value_accuracy,"
      "samples_per_second,load_wait_share,eval_games,eval_wins,eval_draws,"
      "eval_losses,eval_score,elo_vs_previous,elo_error,elo_total,"
      "elo_total_error,score_vs_random,elo_vs_random,wall_seconds,finished,"
      "cpu_seconds\n";
  for (const proto::GenerationRecord& r : rows) {
    const proto::SelfplayRunStats& s = r.selfplay();
    const proto::TrainingRunStats& t = r.training();
    const proto::EvaluationStats& e = r.vs_previous();
    Append(&csv,
           absl::StrFormat(
               "%d,%s,%s,%d,%d,%d,%.2f,%d,%d,%d,%d,%.1f,%.1f,%.1f,%.4f,%d,",
               r.generation(), r.net(), r.selfplay_net(), r.accepted() ? 1 : 0,
               s.games(), s.plies(),
               s.games() ? static_cast<double>(s.plies()) / s.games() : 0.0,
               s.full_search_plies(), s.first_wins(), s.second_wins(),
               s.draws(), s.wall_seconds(), GamesPerHour(s), EvalsPerSecond(s),
               NetworkShare(s), s.false_resigns()),
           absl::StrFormat("%d,%.5f,%.5f,", t.step(), t.policy_loss(),
                           t.value_loss()),
           t.has_validation()
               ? absl::StrFormat("%.5f,%.5f,", t.validation_policy_loss(),
                                 t.validation_value_loss())
               : std::string(",,"),
           absl::StrFormat("%.4f,%.4f,%.1f,%.4f,", t.policy_accuracy(),
                           t.value_accuracy(), t.samples_per_second(),
                           t.load_wait_share()),
           absl::StrFormat("%d,%d,%d,%d,%.4f,%.1f,%.1f,%.1f,%.1f,", e.games(),
                           e.wins(), e.draws(), e.losses(), e.score(), e.elo(),
                           e.elo_error(), r.elo_total(), r.elo_total_error()),
           r.has_vs_random()
               ? absl::StrFormat("%.4f,%.1f,", r.vs_random().score(),
                                 r.vs_random().elo())
               : std::string(",,"),
           // Milliseconds: a tiny generation's CPU time must not round to 0
           // (scripts/ab-learning.sh sums it to pick the nets within a budget).
           absl::StrFormat("%.1f,%s,%.3f\n", r.wall_seconds(), r.finished(),
                           r.cpu_seconds()));
  }
  return WriteFileAtomically(path, csv);
}

std::string FinalSummary(const proto::FinalEvaluation& final) {
  auto counts = [](const proto::EvaluationStats& e) {
    return absl::StrFormat("(+%d =%d -%d)", e.wins(), e.draws(), e.losses());
  };
  std::vector<std::string> parts;
  if (final.has_vs_first()) {
    const proto::EvaluationStats& e = final.vs_first();
    parts.push_back(absl::StrFormat(
        "generation %d vs generation 0: score %.3f, Elo %+.0f +/- %.0f %s",
        final.generation(), e.score(), e.elo(), e.elo_error(), counts(e)));
  }
  if (final.has_vs_random()) {
    const proto::EvaluationStats& e = final.vs_random();
    parts.push_back(absl::StrFormat(
        "%s random: score %.3f %s",
        parts.empty() ? absl::StrFormat("generation %d vs", final.generation())
                      : std::string("vs"),
        e.score(), counts(e)));
  }
  return absl::StrJoin(parts, "; ");
}

absl::Status WriteReportHtml(const std::vector<proto::GenerationRecord>& rows,
                             const proto::LoopConfig& config,
                             const std::string& path,
                             const proto::FinalEvaluation* final) {
  Series policy{"train policy", "#1f77b4", {}, {}};
  Series value{"train value", "#ff7f0e", {}, {}};
  Series val_policy{"validation policy", "#2ca02c", {}, {}};
  Series val_value{"validation value", "#d62728", {}, {}};
  Series elo{"Elo vs generation 0", "#9467bd", {}, {}};
  Series speed{"self-play games/hour", "#8c564b", {}, {}};
  bool validation = true;
  for (const proto::GenerationRecord& r : rows) {
    policy.y.push_back(r.training().policy_loss());
    value.y.push_back(r.training().value_loss());
    validation &= r.training().has_validation();
    val_policy.y.push_back(r.training().validation_policy_loss());
    val_value.y.push_back(r.training().validation_value_loss());
    elo.y.push_back(r.elo_total());
    elo.error.push_back(r.elo_total_error());
    speed.y.push_back(GamesPerHour(r.selfplay()));
  }
  std::vector<Series> losses = {policy, value};
  if (validation && !rows.empty()) {
    losses.push_back(val_policy);
    losses.push_back(val_value);
  }
  std::string html = absl::StrFormat(
      "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>Volkhv run: "
      "%s</title></head>\n<body style='font-family:sans-serif'>\n<h1>Volkhv "
      "run: %s, %d of %d generations</h1>\n",
      config.game(), config.game(), static_cast<int>(rows.size()),
      config.generations());
  if (final != nullptr) {
    Append(&html, "<p><b>Final evaluation:</b> ", FinalSummary(*final),
           "</p>\n");
  }
  Append(&html, Chart("Training losses (nats)", "loss", losses),
         Chart("Strength: Elo relative to generation 0 (95 % intervals)", "Elo",
               {elo}),
         Chart("Self-play throughput", "games/hour", {speed}));
  Append(&html,
         "<table border='1' cellpadding='3' style='border-collapse:collapse'>"
         "\n<tr><th>gen</th><th>games</th><th>plies/game</th><th>policy "
         "loss</th><th>value loss</th><th>vs previous (W/D/L)</th><th>Elo "
         "vs previous</th><th>Elo vs gen 0</th><th>accepted</th></tr>\n");
  for (const proto::GenerationRecord& r : rows) {
    const proto::EvaluationStats& e = r.vs_previous();
    Append(
        &html,
        absl::StrFormat(
            "<tr><td>%d</td><td>%d</td><td>%.1f</td><td>%.3f</td><td>%.3f"
            "</td><td>%d/%d/%d</td><td>%+.0f &plusmn; %.0f</td><td>%+.0f "
            "&plusmn; %.0f</td><td>%s</td></tr>\n",
            r.generation(), r.selfplay().games(),
            r.selfplay().games() ? static_cast<double>(r.selfplay().plies()) /
                                       r.selfplay().games()
                                 : 0.0,
            r.training().policy_loss(), r.training().value_loss(), e.wins(),
            e.draws(), e.losses(), e.elo(), e.elo_error(), r.elo_total(),
            r.elo_total_error(), r.accepted() ? "yes" : "no"));
  }
  html += "</table>\n</body></html>\n";
  return WriteFileAtomically(path, html);
}

}  // namespace volkhv::training
