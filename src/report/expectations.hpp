#pragma once
// Judging a run's curves against --expect-bw and --expect-latency.
#include <vector>

#include "results/expectations.hpp"
#include "results/run_data.hpp"

namespace npgpu {

// Each expectation against each curve, at its size: the headline throughput (bytes per transfer /
// time) or one-way time there, interpolated between the two sizes around it (log-log) when the
// size was not measured itself. A size outside the curve is not met.
std::vector<ExpectationOutcome> judge_expectations(const std::vector<Expectation>& expectations,
                                                   const std::vector<CurveData>& curves);

}  // namespace npgpu
