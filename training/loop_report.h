// metrics.csv and report.html of a loop's run directory, made from its
// finished generations.
#ifndef VOLKHV_TRAINING_LOOP_REPORT_H_
#define VOLKHV_TRAINING_LOOP_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/loop_config.pb.h"
#include "proto/loop_state.pb.h"

namespace volkhv::training {

// One row per generation; the header names every column. Atomic.
absl::Status WriteMetricsCsv(const std::vector<proto::GenerationRecord>& rows,
                             const std::string& path);

// A self-contained HTML page: loss curves, Elo per generation (with 95 %
// intervals) and self-play throughput as inline SVG, the table, and the
// final evaluation when there is one. Atomic.
absl::Status WriteReportHtml(const std::vector<proto::GenerationRecord>& rows,
                             const proto::LoopConfig& config,
                             const std::string& path,
                             const proto::FinalEvaluation* final = nullptr);

// One line: "generation 5 vs generation 0: score 0.780, Elo +220 +/- 120
// (+70 =16 -14); vs random: score 0.950 (+19 =0 -1)"; the Elo interval is
// 95 %. A part that was not played is left out.
std::string FinalSummary(const proto::FinalEvaluation& final);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_LOOP_REPORT_H_
