#pragma once
// The all-pairs matrix (--pairs all): one cell per ordered pair of ranks at each size.
#include <vector>

#include "npgpu/module.hpp"
#include "results/run_record.hpp"
#include "run/collective_steps.hpp"

namespace npgpu {

// Collective. Fills record.matrix on rank 0, calling the reporters there as each step's cells
// complete.
void measure_matrix(CollectiveSteps& steps, Module& module, RunRecord& record, const std::vector<Reporter*>& reporters);

}  // namespace npgpu
