#include "training/loop_budget.h"

#include <sys/resource.h>

#include "absl/strings/str_format.h"

namespace volkhv::training {
namespace {

double Seconds(const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; }

// "" or the reason to stop for one kind of budget: `spent` and `mean` (per
// finished generation) in seconds.
std::string Check(const char* kind, double budget_hours, double spent,
                  double mean, int generations) {
  if (budget_hours <= 0) return "";
  const double budget = budget_hours * 3600;
  if (spent >= budget) {
    return absl::StrFormat(
        "%s budget spent: %.3f of %.3f hours after %d "
        "generations",
        kind, spent / 3600, budget_hours, generations);
  }
  if (generations > 0 && spent + mean > budget) {
    return absl::StrFormat(
        "%s budget: %.3f of %.3f hours spent after %d generations, and "
        "another generation takes %.3f on average",
        kind, spent / 3600, budget_hours, generations, mean / 3600);
  }
  return "";
}

}  // namespace

double ProcessCpuSeconds() {
  double seconds = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    if (getrusage(who, &usage) == 0) {
      seconds += Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
    }
  }
  return seconds;
}

std::string BudgetStop(const LoopBudget& budget,
                       std::span<const proto::GenerationRecord> done) {
  double cpu = 0, wall = 0;
  for (const proto::GenerationRecord& r : done) {
    cpu += r.cpu_seconds();
    wall += r.wall_seconds();
  }
  const int n = static_cast<int>(done.size());
  const double cpu_mean = n > 0 ? cpu / n : 0;
  const double wall_mean = n > 0 ? wall / n : 0;
  std::string reason = Check("CPU", budget.cpu_hours, cpu, cpu_mean, n);
  if (reason.empty()) {
    reason = Check("wall-clock", budget.wall_hours, wall, wall_mean, n);
  }
  return reason;
}

}  // namespace volkhv::training
