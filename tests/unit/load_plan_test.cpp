// --load: which ranks make load and whom they stream to, and the refusals; pure functions.
#include <gtest/gtest.h>

#include <set>
#include <utility>

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
  const LoadPlan load{LoadPattern::stream, {1, 2, 5, 6}, 1 << 20, "", 8};
  check_load(load);
  const LoadCycle cycle = load_cycle(load);
  ASSERT_EQ(cycle.rounds.size(), 1u);
  const std::vector<Peers>& peers = cycle.rounds.front();  // by place among the load ranks: 1, 2, 5, 6
  EXPECT_EQ(peers[0].to, 2);
  EXPECT_EQ(peers[2].from, 0);
  EXPECT_EQ(peers[1].to, 3);
  EXPECT_EQ(peers[3].from, 1);
  EXPECT_EQ(cycle.pattern, Pattern::stream);
  EXPECT_EQ(windows_per_cycle(cycle), 2);
  EXPECT_EQ(load_pairing(load).mode, PairingMode::halves);
  EXPECT_EQ(victims_of(load), (std::vector<int>{0, 3, 4, 7}));
}

// Every unordered pair of the load ranks meets exactly once a cycle, and no rank has two partners in
// a round: the round-robin tournament of a pairwise all-to-all.
void expect_every_pair_once_a_round_each(const LoadCycle& cycle, int count) {
  std::set<std::pair<int, int>> met;
  for (const std::vector<Peers>& round : cycle.rounds) {
    ASSERT_EQ(round.size(), static_cast<std::size_t>(count));
    for (int rank = 0; rank < count; ++rank) {
      const Peers& peers = round[static_cast<std::size_t>(rank)];
      EXPECT_FALSE(peers.to >= 0 && peers.from >= 0) << "rank " << rank << " has two partners in a round";
      if (peers.to < 0) continue;
      EXPECT_EQ(round[static_cast<std::size_t>(peers.to)].from, rank);
      EXPECT_TRUE(met.insert({std::min(rank, peers.to), std::max(rank, peers.to)}).second)
          << rank << " meets " << peers.to << " twice";
    }
  }
  EXPECT_EQ(met.size(), static_cast<std::size_t>(count * (count - 1) / 2));
}

TEST(LoadPlan, AlltoallMeetsEveryPairOnceACycleInRoundsOfPairs) {
  for (int count : {2, 3, 4, 5, 8}) {
    SCOPED_TRACE(count);
    const LoadPlan load{LoadPattern::alltoall, {}, 1 << 20, "", count + 2};
    LoadPlan named = load;
    for (int rank = 0; rank < count; ++rank) named.ranks.push_back(rank);
    check_load(named);
    const LoadCycle cycle = load_cycle(named);
    EXPECT_EQ(cycle.rounds.size(), static_cast<std::size_t>(count % 2 == 0 ? count - 1 : count));
    EXPECT_EQ(cycle.pattern, Pattern::bidir) << "each pair moves both ways at once";
    EXPECT_TRUE(cycle.barrier_between_rounds);
    expect_every_pair_once_a_round_each(cycle, count);
    EXPECT_EQ(windows_per_cycle(cycle), count * (count - 1) / 2);
    EXPECT_EQ(load_pairing(named).mode, PairingMode::all) << "every load rank connects to every other";
  }
}

TEST(LoadPlan, IncastSendsFromEveryOtherLoadRankToTheFirstAllAtOnce) {
  // One round: the first load rank receives a window from each of the others at once.
  const LoadPlan load{LoadPattern::incast, {2, 3, 4, 5}, 1 << 20, "", 6};
  check_load(load);
  const LoadCycle cycle = load_cycle(load);
  ASSERT_EQ(cycle.rounds.size(), 1u);
  const std::vector<Peers>& round = cycle.rounds[0];
  EXPECT_EQ(round[0].to, -1);
  EXPECT_EQ(round[0].senders(), (std::vector<int>{1, 2, 3}));
  for (int sender = 1; sender <= 3; ++sender) {
    EXPECT_EQ(round[static_cast<std::size_t>(sender)].to, 0);
    EXPECT_TRUE(round[static_cast<std::size_t>(sender)].senders().empty());
  }
  EXPECT_EQ(cycle.pattern, Pattern::stream);
  EXPECT_EQ(windows_per_cycle(cycle), 3);
  EXPECT_EQ(load_pairing(load).mode, PairingMode::all) << "the first load rank connects to each sender";
}

TEST(LoadPlan, AModuleOfEachRanksOwnPathLoadsEveryLoadRankAloneInOneRound) {
  // memcpy, cudaMemcpy, p2p: each load rank moves a window on its own path, any count of them.
  for (const std::vector<int>& ranks : {std::vector<int>{2}, std::vector<int>{2, 3, 4}}) {
    const LoadPlan load{LoadPattern::stream, ranks, 1 << 20, "p2p", 5, true};
    check_load(load);
    const LoadCycle cycle = load_cycle(load);
    ASSERT_EQ(cycle.rounds.size(), 1u);
    EXPECT_TRUE(cycle.alone);
    EXPECT_EQ(cycle.rounds[0].size(), ranks.size());
    EXPECT_EQ(windows_per_cycle(cycle), static_cast<int>(ranks.size())) << "one window a load rank";
    EXPECT_EQ(cycle.pattern, Pattern::stream);
  }
  EXPECT_EQ(load_cycle({LoadPattern::bidir, {3}, 8, "p2p", 5, true}).pattern, Pattern::bidir);
  EXPECT_EQ(refusal([] { check_load({LoadPattern::incast, {2, 3}, 8, "p2p", 5, true}); }),
            "--load incast: module p2p moves within each rank (its own path), so each load rank streams on its own: "
            "allowed stream, bidir");
  EXPECT_EQ(refusal([] { check_load({LoadPattern::stream, {1, 2}, 8, "p2p", 3, true}); }),
            "--load-ranks: 2 of the 3 ranks make load, which leaves fewer than the 2 ranks that measure; launch more "
            "ranks");
}

TEST(LoadPlan, LoadsThatLeaveNoPairToMeasureOrCannotPairUpAreRefused) {
  EXPECT_EQ(refusal([] { check_load({LoadPattern::stream, {0, 1}, 8, "", 3}); }),
            "--load-ranks: 2 of the 3 ranks make load, which leaves fewer than the 2 ranks that measure; launch more "
            "ranks");
  EXPECT_EQ(refusal([] { check_load({LoadPattern::bidir, {0, 1, 2}, 8, "", 8}); }),
            "--load bidir pairs the load ranks (the first half with the second), and 3 cannot pair up: name an even "
            "number in --load-ranks");
  EXPECT_EQ(refusal([] { check_load({LoadPattern::incast, {4}, 8, "", 8}); }),
            "--load incast needs at least 2 load ranks in --load-ranks");
}

TEST(LoadPlan, APairNamedByTheRunsRanksIsMeasuredByTheVictimsNumbers) {
  const LoadPlan load{LoadPattern::stream, {0, 1}, 1 << 20, "", 4};
  EXPECT_EQ(victims_pairs("2:3", load), "0:1");
  EXPECT_EQ(victims_pairs("3:2", load), "1:0");
  EXPECT_EQ(victims_pairs("halves", load), "halves");
  EXPECT_EQ(refusal([&] { victims_pairs("1:3", load); }),
            "--pairs 1:3: rank 1 makes load (--load-ranks); the pair must be two of the ranks that measure: 2, 3");
}

}  // namespace
}  // namespace npgpu
