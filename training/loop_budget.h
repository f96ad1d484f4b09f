// A time budget for the generation loop (`volkhv loop --cpu-hours H
// --wall-hours H`), so that two configs can be compared at equal compute
// (scripts/ab-learning.sh). The budget covers the whole run: what earlier
// sessions spent is read back from the generation records, so a resumed run
// stops where an uninterrupted one would have. Time spent in a generation
// that was killed before its record was written is not counted.
#ifndef VOLKHV_TRAINING_LOOP_BUDGET_H_
#define VOLKHV_TRAINING_LOOP_BUDGET_H_

#include <span>
#include <string>

#include "proto/loop_state.pb.h"

namespace volkhv::training {

struct LoopBudget {
  double cpu_hours = 0;   // CPU time of the loop's process (0 = no limit)
  double wall_hours = 0;  // elapsed time (0 = no limit)
};

// Process CPU time so far: every thread of this process plus its children
// that were waited for, user and system. Thread-safe.
double ProcessCpuSeconds();

// Why the loop must not start another generation after `done`, or "" if it
// may. It stops when a budget is spent, or when the mean cost of the
// finished generations would take the run past it (so a run never overruns
// its budget by more than one generation's variation). Pure.
std::string BudgetStop(const LoopBudget& budget,
                       std::span<const proto::GenerationRecord> done);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_LOOP_BUDGET_H_
