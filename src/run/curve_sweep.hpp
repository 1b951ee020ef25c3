#pragma once
// Curves: each group of ranks through the whole schedule, with each of the module's variants.
#include <vector>

#include "results/clock_drift.hpp"
#include "npgpu/module.hpp"
#include "results/run_record.hpp"
#include "run/collective_steps.hpp"

namespace npgpu {

// Collective. Fills record.curves on rank 0, one curve per timing rank of each group and variant,
// calling the reporters there as each size completes. `drifting` (--test-clock-drift, or null) is
// the clock the steps time with, started at its size.
void sweep_curves(CollectiveSteps& steps, Module& module, RunRecord& record, const std::vector<Reporter*>& reporters,
                  DriftingClock* drifting);

}  // namespace npgpu
