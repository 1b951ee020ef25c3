#pragma once
// Hosts of an all-pairs matrix that fall into groups: links inside each group fast, links between
// groups slow when several cells cross at once, as behind switches joined by an oversubscribed
// trunk. A slow host is not a group (its links are flagged one by one); a healthy cluster has none.
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
  double across_at_once = 0;   // what the cells from one group to another moved together in one
                               // step of the schedule (cells x the slowest one's rate), over the
                               // steps where the most crossed one way (their median), B/s: what
                               // the link between caps; 0 unknown
  std::vector<int> crowd;      // by cell (from * ranks + to): the cells of its step that crossed
                               // from its sender's group to its receiver's, itself included; 0
                               // inside a group or for a host in none, -1 where the schedule is
                               // not known
};

// The cells (from * ranks + to) that an all-pairs matrix of `ranks` measures at once, step by step:
// the `steps` split_hosts takes.
std::vector<std::vector<std::size_t>> all_pairs_steps(int ranks);

// The hosts' split at matrix size `size`, or none. A cell is fast within flag_below of what the
// fastest links reach (their 90th percentile). `steps` lists the cells (from * ranks + to)
// measured at once; empty where the schedule is not known. A split must explain all but a tenth
// of the cells: those inside groups fast; those across slow exactly where their crowd shares the
// link between (what it carried at most over the crowd is under a link's rate), and at least one
// slow. The candidates: the groups of hosts joined by fast links both ways, and, up to
// kMostHostsToBisect hosts, every split in two; of those that explain enough, the one whose cells
// lie nearest the rates it expects (a link's, or the crowd's share of the way between) wins.
std::optional<HostSplit> split_hosts(const MatrixData& matrix, std::size_t size,
                                     const std::vector<std::vector<std::size_t>>& steps);

// 2^11 splits in two of 12 hosts, each checked against every cell: milliseconds.
constexpr std::size_t kMostHostsToBisect = 12;

}  // namespace npgpu
