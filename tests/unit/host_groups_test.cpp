// Hosts of an all-pairs matrix that fall into groups, from matrices built in memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "report/host_groups.hpp"

namespace npgpu {
namespace {

// One rank per host h1..hN; `rate(from, to)` in B/s for each cell, at one size.
MatrixData matrix_of(int hosts, const std::function<double(int, int)>& rate) {
  MatrixData m;
  for (int h = 0; h < hosts; ++h) m.rank_host.push_back("h" + std::to_string(h + 1));
  m.bytes = {1 << 20};
  m.patterns = {Pattern::stream};
  for (int from = 0; from < hosts; ++from)
    for (int to = 0; to < hosts; ++to) m.throughput.push_back(from == to ? std::nan("") : rate(from, to));
  return m;
}

// A little noise, the same for every run: +-3%.
double jitter(int from, int to) { return 1 + 0.03 * std::sin(7.0 * from + 3.0 * to); }

TEST(HostGroups, TwoSwitchesJoinedByATrunk) {
  // 8 hosts at 50 MB/s; across the trunk (25 MB/s each way) a pair gets 25 MB/s over the steps'
  // share of it: alone 25, with three more crossing the same way 6.25.
  const std::vector<std::vector<std::size_t>> steps = all_pairs_steps(8);
  std::vector<double> cell_rate(64, 50e6);
  for (const std::vector<std::size_t>& step : steps) {
    int crossing[2] = {0, 0};
    for (std::size_t cell : step)
      if ((cell / 8 < 4) != (cell % 8 < 4)) ++crossing[cell / 8 < 4 ? 0 : 1];
    for (std::size_t cell : step)
      if ((cell / 8 < 4) != (cell % 8 < 4)) cell_rate[cell] = 25e6 / crossing[cell / 8 < 4 ? 0 : 1];
  }
  const MatrixData m = matrix_of(8, [&](int from, int to) { return cell_rate[static_cast<std::size_t>(from * 8 + to)] * jitter(from, to); });
  const std::optional<HostSplit> split = split_hosts(m, 0, steps);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->groups, (std::vector<std::vector<std::string>>{{"h1", "h2", "h3", "h4"}, {"h5", "h6", "h7", "h8"}}));
  EXPECT_NEAR(split->within, 50e6, 0.03 * 50e6);
  EXPECT_LT(split->across, 25e6 * 1.03);
  EXPECT_NEAR(split->across_at_once, 25e6, 0.1 * 25e6) << "the trunk's capacity, each way";
}

// Two racks of `rack` hosts at 12.5 MB/s, joined by a trunk of `links` host links each way: a
// cell across gets the trunk over the cells crossing the same way in its step, at most a link.
// Unfair: the first of each crowd a fifth faster (60:40 of two, as on a trunk in one CI launch),
// done first; the slowest still gets its fair share (the trunk stays busy until it is done).
MatrixData two_racks(int rack, double links, const std::vector<std::vector<std::size_t>>& steps, bool unfair) {
  const auto hosts = static_cast<std::size_t>(2 * rack);
  const auto left = [&](std::size_t host) { return host < static_cast<std::size_t>(rack); };
  std::vector<double> cell_rate(hosts * hosts, 12.5e6);
  for (const std::vector<std::size_t>& step : steps) {
    int crossing[2] = {0, 0};
    for (std::size_t cell : step)
      if (left(cell / hosts) != left(cell % hosts)) ++crossing[left(cell / hosts) ? 0 : 1];
    bool first[2] = {unfair, unfair};
    for (std::size_t cell : step)
      if (left(cell / hosts) != left(cell % hosts)) {
        bool& favoured = first[left(cell / hosts) ? 0 : 1];
        cell_rate[cell] = std::min(12.5e6, (favoured ? 1.2 : 1.0) * links * 12.5e6 / crossing[left(cell / hosts) ? 0 : 1]);
        favoured = false;
      }
  }
  return matrix_of(2 * rack, [&](int from, int to) { return cell_rate[static_cast<std::size_t>(from * 2 * rack + to)] * jitter(from, to); });
}

// A trunk faster than one host link and slower than a rack's links together (a tapered fat
// tree): a pair crossing alone is as fast as one inside a rack, so only the crowds tell the racks
// apart, and the most that crossed at once is the trunk. One as fast as a rack's links together
// shares nothing: no split.
TEST(HostGroups, ATrunkFasterThanOneLinkIsFoundFromTheCrowdsThatCrossedIt) {
  for (int rack : {3, 4})
    for (double links : {1.0, 1.5, 2.0, 3.0})
      for (bool unfair : {false, true}) {
        SCOPED_TRACE("racks of " + std::to_string(rack) + ", trunk of " + std::to_string(links) + " links" +
                     (unfair ? ", unfair" : ""));
        const std::vector<std::vector<std::size_t>> steps = all_pairs_steps(2 * rack);
        const std::optional<HostSplit> split = split_hosts(two_racks(rack, links, steps, unfair), 0, steps);
        if (links >= rack) {
          EXPECT_FALSE(split);
          continue;
        }
        ASSERT_TRUE(split);
        ASSERT_EQ(split->groups.size(), 2u);
        EXPECT_EQ(split->groups[0].front(), "h1");
        EXPECT_EQ(split->groups[0].size(), static_cast<std::size_t>(rack));
        EXPECT_EQ(split->groups[1].front(), "h" + std::to_string(rack + 1));
        EXPECT_NEAR(split->across_at_once, links * 12.5e6, 0.1 * links * 12.5e6);
        // The halves' own step crosses all of a rack at once; inside a rack none crosses.
        EXPECT_EQ(split->crowd[static_cast<std::size_t>(rack)], rack) << "h1 -> its halves partner";
        EXPECT_EQ(split->crowd[1], 0) << "h1 -> h2, inside a rack";
      }
}

TEST(HostGroups, AHealthyClusterAndASlowHostSplitNothing) {
  EXPECT_FALSE(split_hosts(matrix_of(8, [](int from, int to) { return 50e6 * jitter(from, to); }), 0, all_pairs_steps(8)));
  // Host 4 at a third: its links are slow both ways, but one host is not a group.
  EXPECT_FALSE(split_hosts(matrix_of(8, [](int from, int to) { return (from == 3 || to == 3 ? 50e6 / 3 : 50e6) * jitter(from, to); }),
                           0, all_pairs_steps(8)));
  EXPECT_FALSE(split_hosts(matrix_of(3, [](int, int) { return 50e6; }), 0, {})) << "under 4 hosts: no two groups of two";
}

TEST(HostGroups, WithoutTheScheduleTheCapIsUnknown) {
  const MatrixData m = matrix_of(4, [](int from, int to) { return (from < 2) == (to < 2) ? 50e6 : 20e6; });
  const std::optional<HostSplit> split = split_hosts(m, 0, {});
  ASSERT_TRUE(split);
  EXPECT_EQ(split->across_at_once, 0);
  EXPECT_DOUBLE_EQ(split->across, 20e6);
}

}  // namespace
}  // namespace npgpu
