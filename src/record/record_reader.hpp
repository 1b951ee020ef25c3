#pragma once
// Reads runs back from npgpu records for `npgpu report` and `npgpu export`.
#include <string>
#include <vector>

#include "results/run_data.hpp"

namespace npgpu {

// "run.h5" (every run in it) or "run.h5:/runs/0003" (that run; "run.h5:3" says the same).
// UsageError, one line, for a missing file, a file that is not an npgpu record, or no such run.
std::vector<RunData> read_runs(const std::string& spec);

}  // namespace npgpu
