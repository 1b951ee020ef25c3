#pragma once
// The experiment: warm-up, calibration, trials until precise enough, statistics, reporting.
#include "npgpu/clock.hpp"
#include "npgpu/module.hpp"
#include "npgpu/record.hpp"
#include "npgpu/team.hpp"

namespace npgpu {

// Collective. Sweeps record.schedule with `module` (already set up) and fills record.curves on
// rank 0, calling the reporter there as each size completes.
void run_sweep(Module& module, RunRecord& record, const Team& team, const Clock& clock,
               Reporter& reporter);

}  // namespace npgpu
