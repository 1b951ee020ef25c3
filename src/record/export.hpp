#pragma once
// Runs as text for older tools: NetPIPE's np.out columns (gnuplot habits) and plain CSV
// (spreadsheets). docs/hdf5-schema.md, "Exporting", says what every column holds.
#include <string>
#include <vector>

#include "results/run_data.hpp"

namespace npgpu {

// NetPIPE 3.x np.out: one line per size, as its "%8d %lf %12.8lf": bytes per transfer, throughput
// in NetPIPE 3.x's Mbps (bits per second / 2^20), one-way time per transfer in seconds (the run's
// headline statistic) with 12 decimals rather than 8, which would round sub-microsecond times. Lines starting with '#' name the units and each curve; curves are apart by
// two blank lines, so gnuplot's `index N` picks curve N.
std::string np_out_text(const std::vector<RunData>& runs);

// One row per size of every curve, with a header row; times in s, throughput in B/s.
std::string csv_text(const std::vector<RunData>& runs);

}  // namespace npgpu
