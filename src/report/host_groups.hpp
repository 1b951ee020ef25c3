#pragma once
// Hosts of an all-pairs matrix that fall into groups: links inside each group fast, links between
// groups slow, as behind switches joined by an oversubscribed trunk. A slow host is not a group
// (its links are flagged one by one); a healthy cluster has none.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "results/run_data.hpp"

namespace npgpu {

struct HostSplit {
  std::vector<std::vector<std::string>> groups;  // host names, two or more in each group
  double within = 0;           // median throughput of the cells inside the groups, B/s
  double across = 0;           // median throughput of the cells between groups, B/s
  double across_at_once = 0;   // the most the cells from one group to another moved together in
                               // one step of the schedule (cells x the slowest one's rate), B/s:
                               // what the link between caps; 0 unknown
};

// The hosts' split at matrix size `size`, or none. Host to host rates are the medians of their
// cells; a link is fast within flag_below of what the fastest links reach (their 90th
// percentile), and hosts joined by fast links both ways form the groups. Every link between
// groups must be slow and every link inside one fast, all but a tenth of them. `steps` lists the
// cells (from * ranks + to) measured at once, for across_at_once; empty where the schedule is not
// known.
std::optional<HostSplit> split_hosts(const MatrixData& matrix, std::size_t size,
                                     const std::vector<std::vector<std::size_t>>& steps);

}  // namespace npgpu
