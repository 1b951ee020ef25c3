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

TEST(Pairing, AllIsMpiGraphsShiftScheduleCoveringEveryOrderedPairOnce) {
  const int n = 5;
  const std::vector<PairStep> steps = pairing_steps(parse_rank_pairing("all", n, 0, 0));
  ASSERT_EQ(steps.size(), static_cast<std::size_t>(n - 1));
  std::set<std::pair<int, int>> cells;
  for (const PairStep& step : steps) {
    std::set<int> receivers;
    for (int rank = 0; rank < n; ++rank) {
      const Peers& peers = step.peers[static_cast<std::size_t>(rank)];
      EXPECT_EQ(peers.to, (rank + step.shift) % n);
      EXPECT_EQ(peers.from, (rank - step.shift + n) % n);
      EXPECT_EQ(step.peers[static_cast<std::size_t>(peers.to)].from, rank) << "what one sends, the other answers";
      receivers.insert(peers.to);
      cells.insert({rank, peers.to});
    }
    EXPECT_EQ(receivers.size(), static_cast<std::size_t>(n)) << "a permutation: nobody receives twice at once";
  }
  EXPECT_EQ(cells.size(), static_cast<std::size_t>(n * (n - 1)));
  EXPECT_EQ(partners(parse_rank_pairing("all", n, 0, 0), 0), (std::vector<int>{1, 2, 3, 4}));
}

TEST(Pairing, SampleDrawsTheSameShiftsForTheSameSeed) {
  const RankPairing a = parse_rank_pairing("all", 9, 3, 42);
  const std::vector<PairStep> steps = pairing_steps(a);
  ASSERT_EQ(steps.size(), 3u);
  std::vector<int> shifts;
  for (const PairStep& step : steps) shifts.push_back(step.shift);
  std::vector<int> again;
  for (const PairStep& step : pairing_steps(parse_rank_pairing("all", 9, 3, 42))) again.push_back(step.shift);
  EXPECT_EQ(shifts, again) << "every rank computes the same partners";
  for (int shift : shifts) EXPECT_TRUE(shift >= 1 && shift <= 8);
  std::set<std::vector<int>> draws;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    std::vector<int> drawn;
    for (const PairStep& step : pairing_steps(parse_rank_pairing("all", 9, 3, seed))) drawn.push_back(step.shift);
    draws.insert(drawn);
  }
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
