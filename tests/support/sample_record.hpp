#pragma once
// A small, fully known RunRecord for the tests of what reads and writes records.
#include "results/run_record.hpp"

namespace npgpu::test {

// Rank 0 on "alpha" (facts gpu 0, numa_node 1), rank 1 on "beta". One curve (rank 0, link peak
// 63e9 B/s) of `sizes` sizes 1, 2, 4, ...; size i has trials of
// (i + 1) * 1e-3 s, (i + 1) * 2e-3 s and (i + 1) * 3e-3 s with 10 pingpong repetitions each.
RunRecord sample_record(std::size_t sizes = 4);

}  // namespace npgpu::test
