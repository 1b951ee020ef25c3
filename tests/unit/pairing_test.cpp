// --pairs for the pair modules: which ranks measure together, step by step; pure functions.
#include <gtest/gtest.h>

#include <set>

#include "npgpu/pairing.hpp"
#include "support/refusal.hpp"

namespace npgpu {
namespace {

using test::refusal;

TEST(Pairing, OnePairTimesOnItsFirstRankAndLeavesTheOthersIdle) {
  const RankPairing pairing = parse_rank_pairing("2:0", 4, 0, 0);
  const std::vector<PairStep> steps = pairing_steps(pairing);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].timers, std::vector<int>{2});
  EXPECT_EQ(steps[0].peers[2].to, 0);
  EXPECT_EQ(steps[0].peers[2].from, -1);
  EXPECT_EQ(steps[0].peers[0].from, 2);
  EXPECT_TRUE(steps[0].peers[1].idle());
  EXPECT_TRUE(steps[0].peers[3].idle());
  EXPECT_EQ(side_of(pairing, 2), PairSide::first);
  EXPECT_EQ(side_of(pairing, 0), PairSide::second);
  EXPECT_EQ(side_of(pairing, 1), PairSide::idle);
  EXPECT_EQ(describe(pairing), "2:0");
  EXPECT_EQ(describe(parse_rank_pairing("", 2, 0, 0)), "0:1") << "the default";
}

TEST(Pairing, HalvesPairRankIWithIPlusHalf) {
  const RankPairing pairing = parse_rank_pairing("halves", 6, 0, 0);
  const std::vector<PairStep> steps = pairing_steps(pairing);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].timers, (std::vector<int>{0, 1, 2}));
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(steps[0].peers[static_cast<std::size_t>(rank)].to, rank + 3);
    EXPECT_EQ(steps[0].peers[static_cast<std::size_t>(rank + 3)].from, rank);
  }
  EXPECT_EQ(partners(pairing, 4), std::vector<int>{1});
}

// Every ordered pair once, each in a step of its shift, and no rank both sending and receiving in a
// step (a slow link would otherwise hold up every link of its cycle).
void expect_shift_schedule(int n, std::size_t steps_expected) {
  const std::vector<PairStep> steps = pairing_steps(parse_rank_pairing("all", n, 0, 0));
  EXPECT_EQ(steps.size(), steps_expected) << n << " ranks";
  std::set<std::pair<int, int>> cells;
  for (const PairStep& step : steps) {
    std::set<int> busy;
    for (int rank = 0; rank < n; ++rank) {
      const Peers& peers = step.peers[static_cast<std::size_t>(rank)];
      if (peers.to < 0) continue;
      EXPECT_EQ(peers.to, (rank + step.shift) % n);
      EXPECT_EQ(step.peers[static_cast<std::size_t>(peers.to)].from, rank) << "what one sends, the other answers";
      EXPECT_LT(peers.from, 0) << "rank " << rank << " sends and receives at once";
      EXPECT_TRUE(busy.insert(rank).second && busy.insert(peers.to).second) << "nobody in two pairs at once";
      EXPECT_TRUE(cells.insert({rank, peers.to}).second) << rank << "->" << peers.to << " measured twice";
    }
    EXPECT_FALSE(step.timers.empty());
    for (int timer : step.timers) EXPECT_GE(step.peers[static_cast<std::size_t>(timer)].to, 0) << "senders time";
  }
  EXPECT_EQ(cells.size(), static_cast<std::size_t>(n * (n - 1))) << n << " ranks";
}

TEST(Pairing, AllIsMpiGraphsShiftScheduleCoveringEveryOrderedPairOnce) {
  expect_shift_schedule(2, 2);      // 0->1, then 1->0
  expect_shift_schedule(4, 3 * 2);  // every shift's cycles are even: two steps each
  expect_shift_schedule(5, 4 * 3);  // one odd cycle of 5 per shift: a third step for its last rank
  expect_shift_schedule(6, 2 + 3 + 2 + 3 + 2);  // shifts 2 and 4 are two cycles of 3
  expect_shift_schedule(8, 7 * 2);
  EXPECT_EQ(partners(parse_rank_pairing("all", 5, 0, 0), 0), (std::vector<int>{1, 2, 3, 4}));
}

std::set<int> shifts_of(const std::vector<PairStep>& steps) {
  std::set<int> shifts;
  for (const PairStep& step : steps) shifts.insert(step.shift);
  return shifts;
}

TEST(Pairing, SampleDrawsTheSameShiftsForTheSameSeed) {
  const RankPairing a = parse_rank_pairing("all", 9, 3, 42);
  const std::set<int> shifts = shifts_of(pairing_steps(a));
  ASSERT_EQ(shifts.size(), 3u);
  EXPECT_EQ(shifts, shifts_of(pairing_steps(parse_rank_pairing("all", 9, 3, 42)))) << "every rank computes the same partners";
  for (int shift : shifts) EXPECT_TRUE(shift >= 1 && shift <= 8);
  for (int rank = 0; rank < 9; ++rank) {
    std::set<int> sends_to;
    for (const PairStep& step : pairing_steps(a))
      if (const int to = step.peers[static_cast<std::size_t>(rank)].to; to >= 0) sends_to.insert(to);
    EXPECT_EQ(sends_to.size(), 3u) << "rank " << rank << " sends to 3 partners";
  }
  std::set<std::set<int>> draws;
  for (std::uint64_t seed = 0; seed < 20; ++seed) draws.insert(shifts_of(pairing_steps(parse_rank_pairing("all", 9, 3, seed))));
  EXPECT_GT(draws.size(), 5u) << "seeds draw different partners";
  EXPECT_EQ(describe(a), "all, sampled 3 of 8 partners (seed 42)");
}

TEST(Pairing, RefusesWhatCannotPair) {
  EXPECT_NE(refusal([] { parse_rank_pairing("halves", 5, 0, 0); }).find("this run has 5 ranks: start an even number"),
            std::string::npos);
  EXPECT_NE(refusal([] { parse_rank_pairing("0:4", 4, 0, 0); }).find("rank 4 does not exist in a run of 4 ranks (ranks 0 to 3)"),
            std::string::npos);
  EXPECT_NE(refusal([] { parse_rank_pairing("1:1", 4, 0, 0); }).find("a pair needs two different ranks"), std::string::npos);
  EXPECT_NE(refusal([] { parse_rank_pairing("0-1", 4, 0, 0); }).find("allowed: A:B"), std::string::npos);
  EXPECT_NE(refusal([] { parse_rank_pairing("a:1", 4, 0, 0); }).find("'a' is not a rank number"), std::string::npos);
  EXPECT_NE(refusal([] { parse_rank_pairing("all", 4, 4, 0); }).find("choose 1 to 3"), std::string::npos);
  EXPECT_NE(refusal([] { parse_rank_pairing("halves", 4, 2, 0); }).find("applies to --pairs all only"), std::string::npos);
}

TEST(Pairing, AllPairsPatternIsLatencyForSmallAndThroughputForLargeSizes) {
  EXPECT_EQ(all_pairs_pattern(8), Pattern::pingpong);
  EXPECT_EQ(all_pairs_pattern(64 * 1024 - 1), Pattern::pingpong);
  EXPECT_EQ(all_pairs_pattern(64 * 1024), Pattern::stream);
}

}  // namespace
}  // namespace npgpu
