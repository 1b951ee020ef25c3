// The all-pairs matrix: classes of comparable cells, and the cells flagged against their class.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "results/pair_matrix.hpp"
#include "npgpu/pairing.hpp"
#include "results/statistics.hpp"

namespace npgpu {
namespace {

// A measured cell whose one-way time gives `rate` bytes per second for 1 MB transfers.
SizeResult cell_at(double rate) {
  SizeResult cell;
  cell.bytes = 1000000;
  cell.reps = 1;
  cell.shape = {1, 1e6};
  cell.trial_seconds = {1e6 / rate, 1e6 / rate, 1e6 / rate};
  summarize_trials(cell);
  return cell;
}

// Four hosts of one rank each; every link runs at `rate`, but those touching `slow` at rate / 3.
PairMatrix four_hosts(double rate, int slow) {
  PairMatrix m = empty_matrix(4, {1000000}, {Pattern::stream});
  m.rank_host = {"h0", "h1", "h2", "h3"};
  m.rank_gpu = {"", "", "", ""};
  for (int from = 0; from < 4; ++from)
    for (int to = 0; to < 4; ++to)
      if (from != to) m.cells[0][static_cast<std::size_t>(from * 4 + to)] = cell_at(from == slow || to == slow ? rate / 3 : rate);
  classify_cells(m);
  return m;
}

TEST(PairMatrix, FlagsExactlyTheLinksTouchingTheSlowHost) {
  const PairMatrix m = four_hosts(50e6, 3);
  const std::vector<FlaggedLink> flagged = flag_slow_links(m, Headline::median);
  ASSERT_EQ(flagged.size(), 6u) << "three links out of host 3 and three into it";
  for (const FlaggedLink& link : flagged) {
    EXPECT_TRUE(link.from == 3 || link.to == 3) << link.from << "->" << link.to;
    EXPECT_NEAR(link.throughput, 50e6 / 3, 1);
    EXPECT_NEAR(link.class_median, (50e6 + 50e6 / 3) / 2, 1) << "six fast and six slow cells";
  }
}

TEST(PairMatrix, AHealthyMatrixFlagsNothingAndUnmeasuredCellsAreNaN) {
  PairMatrix m = four_hosts(50e6, -1);
  m.cells[0][1] = SizeResult{};  // sampled away
  EXPECT_TRUE(flag_slow_links(m, Headline::median).empty());
  EXPECT_TRUE(std::isnan(cell_throughput(m.cells[0][1], Headline::median)));
}

// Noise only adds time: two of three trials of a healthy link descheduled to a quarter of its
// rate pull its median down, but its fastest trial keeps up with its class; a slow link's do not.
TEST(PairMatrix, NoiseInMostTrialsOfAHealthyLinkFlagsNothing) {
  PairMatrix m = four_hosts(50e6, -1);
  SizeResult& noisy = m.cells[0][1 * 4 + 2];
  noisy.trial_seconds = {1e6 / 50e6, 4e6 / 50e6, 4e6 / 50e6};
  summarize_trials(noisy);
  ASSERT_LT(cell_throughput(noisy, Headline::median), 0.8 * 50e6) << "its median alone would be flagged";
  EXPECT_TRUE(flag_slow_links(m, Headline::median).empty());

  SizeResult& slow = m.cells[0][2 * 4 + 3];
  slow = cell_at(50e6 / 3);
  const std::vector<FlaggedLink> flagged = flag_slow_links(m, Headline::median);
  ASSERT_EQ(flagged.size(), 1u);
  EXPECT_EQ(std::pair(flagged[0].from, flagged[0].to), std::pair(2, 3));
}

// A spell of the machine's slowness over one shift (its cells measured one after another): 1 -> 0,
// 2 -> 1 and 3 -> 2 at 8 B read 73% of their class's median in a launch here, and so did 0 -> 3
// of the same shift. A host slow one way only still has its links flagged, each beside healthy
// links in its shift.
TEST(PairMatrix, AShiftSlowedTogetherFlagsNothingButAHostSlowOneWayIsFlagged) {
  PairMatrix m = four_hosts(50e6, -1);
  const int shift = 3;
  for (int from = 0; from < 4; ++from) m.cells[0][static_cast<std::size_t>(from * 4 + (from + shift) % 4)] = cell_at(0.73 * 50e6);
  ASSERT_LT(0.73 * 50e6, 0.8 * median_of(std::vector<double>{50e6, 50e6, 0.73 * 50e6})) << "slow against the class";
  EXPECT_TRUE(flag_slow_links(m, Headline::median).empty());

  m = four_hosts(50e6, -1);
  for (int to = 0; to < 3; ++to) m.cells[0][static_cast<std::size_t>(3 * 4 + to)] = cell_at(50e6 / 3);
  std::vector<std::pair<int, int>> flagged;
  for (const FlaggedLink& link : flag_slow_links(m, Headline::median)) flagged.emplace_back(link.from, link.to);
  EXPECT_EQ(flagged, (std::vector<std::pair<int, int>>{{3, 0}, {3, 1}, {3, 2}}));
}

// --sample leaves most cells unmeasured; the slow host is still found among the cells that were.
TEST(PairMatrix, ASampledMatrixFlagsExactlyTheMeasuredLinksTouchingTheSlowHost) {
  const int n = 8, slow = 5;
  PairMatrix m = empty_matrix(n, {1000000}, {Pattern::stream});
  for (int rank = 0; rank < n; ++rank) {
    m.rank_host.push_back("h" + std::to_string(rank));
    m.rank_gpu.push_back("");
  }
  std::vector<std::pair<int, int>> touching_slow;
  for (const PairStep& step : pairing_steps(parse_rank_pairing("all", n, 3, 11)))
    for (int from = 0; from < n; ++from) {
      const int to = step.peers[static_cast<std::size_t>(from)].to;
      if (to < 0) continue;  // this rank answers, or rests, in this step
      const bool slow_link = from == slow || to == slow;
      m.cells[0][static_cast<std::size_t>(from * n + to)] = cell_at(slow_link ? 50e6 / 3 : 50e6);
      if (slow_link) touching_slow.emplace_back(from, to);
    }
  classify_cells(m);
  std::vector<std::pair<int, int>> flagged;
  for (const FlaggedLink& link : flag_slow_links(m, Headline::median)) flagged.emplace_back(link.from, link.to);
  std::sort(touching_slow.begin(), touching_slow.end());
  std::sort(flagged.begin(), flagged.end());
  EXPECT_EQ(touching_slow.size(), 6u) << "3 partners each: 3 links out of the slow host, 3 into it";
  EXPECT_EQ(flagged, touching_slow);
}

TEST(PairMatrix, ComparesOnlyCellsOfTheSameClass) {
  PairMatrix m = empty_matrix(4, {1000000}, {Pattern::stream});
  m.rank_host = {"a", "a", "b", "b"};
  m.rank_gpu = {"GPU 0", "GPU 1", "GPU 0", "GPU 1"};
  for (int from = 0; from < 4; ++from)
    for (int to = 0; to < 4; ++to)
      if (from != to) {
        const bool one_host = m.rank_host[static_cast<std::size_t>(from)] == m.rank_host[static_cast<std::size_t>(to)];
        m.cells[0][static_cast<std::size_t>(from * 4 + to)] = cell_at(one_host ? 400e9 : 25e9);
      }
  classify_cells(m);
  ASSERT_EQ(m.classes.size(), 2u);
  EXPECT_EQ(m.classes[static_cast<std::size_t>(m.cell_class[1])], "one host, GPU buffers");
  EXPECT_EQ(m.classes[static_cast<std::size_t>(m.cell_class[2])], "two hosts, GPU buffers");
  EXPECT_EQ(m.cell_class[0], -1) << "the diagonal";
  EXPECT_TRUE(flag_slow_links(m, Headline::median).empty()) << "the network is not compared with NVLink";
}

}  // namespace
}  // namespace npgpu
