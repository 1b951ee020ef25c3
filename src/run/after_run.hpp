#pragma once
// What a complete run owes beyond its record, once the record is written (rank 0): the np.out copy
// (--np-out) and the verdict on --expect-bw / --expect-latency.
#include <string>

#include "results/run_record.hpp"

namespace npgpu {

// Writes --np-out, prints every expectation not met; returns the run's exit code: 0, or
// kExitExpectation when one was not met.
int after_run_saved(const RunRecord& record, const std::string& run_group);

}  // namespace npgpu
