// --load: which ranks make load and whom they stream to, and the refusals; pure functions.
#include <gtest/gtest.h>

#include "results/load_plan.hpp"
#include "support/refusal.hpp"

namespace npgpu {
namespace {

using test::refusal;

TEST(LoadPlan, RankListsTakeRanksAndRanges) {
  EXPECT_EQ(parse_rank_list("0,1,4,5", 8), (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(parse_rank_list("4-7", 8), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(parse_rank_list("6,0,2-3", 8), (std::vector<int>{0, 2, 3, 6}));
}

TEST(LoadPlan, BadRankListsAreRefusedNamingWhatIsWrong) {
  EXPECT_EQ(refusal([] { parse_rank_list("0,8", 8); }),
            "--load-ranks 0,8: rank 8 does not exist in a run of 8 ranks (ranks 0 to 7)");
  EXPECT_EQ(refusal([] { parse_rank_list("1,x", 8); }),
            "--load-ranks 1,x: 'x' is not a rank number; allowed: ranks and ranges separated by commas, e.g. 0,1,4,5 or 4-7");
  EXPECT_EQ(refusal([] { parse_rank_list("5-3", 8); }),
            "--load-ranks 5-3: the range 5-3 runs backwards; allowed: ranks and ranges separated by commas, e.g. 0,1,4,5 or "
            "4-7");
  EXPECT_EQ(refusal([] { parse_rank_list("1,0-2", 8); }), "--load-ranks 1,0-2: rank 1 is named twice");
  EXPECT_EQ(refusal([] { parse_rank_list("", 8); }),
            "--load-ranks : '' is not a rank number; allowed: ranks and ranges separated by commas, e.g. 0,1,4,5 or 4-7");
  EXPECT_EQ(refusal([] { parse_load_pattern("storm"); }), "--load storm: allowed: stream, bidir, incast, alltoall");
}

TEST(LoadPlan, StreamPairsTheFirstHalfOfTheLoadRanksWithTheSecond) {
  const LoadPlan load{LoadPattern::stream, {1, 2, 5, 6}, 1 << 20, ""};
  check_load(load, 8);
  const std::vector<Peers> peers = load_pairs(load, 8);
  EXPECT_EQ(peers[1].to, 5);
  EXPECT_EQ(peers[5].from, 1);
  EXPECT_EQ(peers[2].to, 6);
  EXPECT_EQ(peers[6].from, 2);
  for (int victim : {0, 3, 4, 7}) EXPECT_TRUE(peers[static_cast<std::size_t>(victim)].idle()) << victim;
  EXPECT_EQ(victims_of(load, 8), (std::vector<int>{0, 3, 4, 7}));
}

TEST(LoadPlan, LoadsThatLeaveNoPairToMeasureOrCannotPairUpAreRefused) {
  EXPECT_EQ(refusal([] { check_load({LoadPattern::stream, {0, 1}, 8, ""}, 3); }),
            "--load-ranks: 2 of the 3 ranks make load, which leaves fewer than the 2 ranks that measure; launch more "
            "ranks");
  EXPECT_EQ(refusal([] { check_load({LoadPattern::bidir, {0, 1, 2}, 8, ""}, 8); }),
            "--load bidir pairs the load ranks (the first half with the second), and 3 cannot pair up: name an even "
            "number in --load-ranks");
  EXPECT_EQ(refusal([] { check_load({LoadPattern::incast, {4}, 8, ""}, 8); }),
            "--load incast needs at least 2 load ranks in --load-ranks");
}

TEST(LoadPlan, APairNamedByTheRunsRanksIsMeasuredByTheVictimsNumbers) {
  const LoadPlan load{LoadPattern::stream, {0, 1}, 1 << 20, ""};
  EXPECT_EQ(victims_pairs("2:3", load, 4), "0:1");
  EXPECT_EQ(victims_pairs("3:2", load, 4), "1:0");
  EXPECT_EQ(victims_pairs("halves", load, 4), "halves");
  EXPECT_EQ(refusal([&] { victims_pairs("1:3", load, 4); }),
            "--pairs 1:3: rank 1 makes load (--load-ranks); the pair must be two of the ranks that measure: 2, 3");
}

}  // namespace
}  // namespace npgpu
