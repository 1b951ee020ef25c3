// p2p's GPU pairs and copy legs, settled without a GPU.
#include <gtest/gtest.h>

#include "cli/cli.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/errors.hpp"
#include "p2p/p2p_options.hpp"

namespace npgpu {
namespace {

std::string refusal(const std::string& pairs) {
  try {
    parse_pairs(pairs);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "accepted";
}

std::string expand_refusal(const PairSelection& selection, int gpus) {
  try {
    expand_pairs(selection, gpus, Pattern::stream);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(Pairs, ParsesOnePairOrAll) {
  EXPECT_EQ(parse_pairs("").pair, (GpuPair{0, 1})) << "the default";
  EXPECT_FALSE(parse_pairs("").all);
  EXPECT_EQ(parse_pairs("3:2").pair, (GpuPair{3, 2}));
  EXPECT_TRUE(parse_pairs("all").all);
}

TEST(Pairs, RefusesMalformedText) {
  for (const char* bad : {"0-1", "0:", ":1", "a:b", "0:1:2", "-1:0", "0: 1", "all,0:1", "99999:0"})
    EXPECT_NE(refusal(bad).find("write SRC:DST with two GPU indices"), std::string::npos) << bad;
  EXPECT_NE(refusal("1:1").find("a GPU is not its own peer"), std::string::npos);
}

TEST(Pairs, AllIsEveryOrderedPairOrEveryUnorderedOneForBidir) {
  const PairSelection all = parse_pairs("all");
  EXPECT_EQ(expand_pairs(all, 3, Pattern::stream),
            (std::vector<GpuPair>{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}));
  EXPECT_EQ(expand_pairs(all, 3, Pattern::bidir), (std::vector<GpuPair>{{0, 1}, {0, 2}, {1, 2}}))
      << "bidir runs both directions at once: 1 and 0 is 0 and 1";
}

TEST(Pairs, RefusesGpusThatAreNotThere) {
  EXPECT_NE(expand_refusal(parse_pairs("0:2"), 2).find("--pairs 0:2: this node has 2 GPUs (0 to 1)"), std::string::npos);
  EXPECT_NE(expand_refusal(parse_pairs("all"), 1).find("copies between two GPUs, and this node has 1 GPU"),
            std::string::npos);
  EXPECT_EQ(expand_refusal(parse_pairs("1:0"), 2), "accepted");
}

TEST(Pairs, VariantNamesAreHdf5GroupNameParts) {
  EXPECT_EQ(pair_variant({0, 1}, Pattern::stream), "gpu0_to_gpu1");
  EXPECT_EQ(pair_variant({2, 1}, Pattern::pingpong), "gpu2_to_gpu1");
  EXPECT_EQ(pair_variant({0, 1}, Pattern::bidir), "gpu0_and_gpu1");
}

TEST(PairLegs, WriteIsPushedByTheSourceAndReadPulledByTheDestination) {
  const CopyLegs write = pair_legs(Pattern::stream, true);
  ASSERT_EQ(write.legs.size(), 1u);
  EXPECT_EQ(write.legs[0].from, kSourceSends);
  EXPECT_EQ(write.legs[0].to, kDestinationReceives);
  EXPECT_EQ(write.legs[0].stream, kSourceStream);
  EXPECT_EQ(pair_legs(Pattern::stream, false).legs[0].stream, kDestinationStream);
}

TEST(PairLegs, BidirRunsBothWaysAtOnceOnBothGpus) {
  const CopyLegs both = pair_legs(Pattern::bidir, true);
  ASSERT_EQ(both.legs.size(), 2u);
  EXPECT_FALSE(both.chained);
  EXPECT_EQ(both.legs[1].from, kDestinationSends);
  EXPECT_EQ(both.legs[1].to, kSourceReceives);
  EXPECT_NE(both.legs[0].stream, both.legs[1].stream) << "each GPU pushes its own data";
}

TEST(PairLegs, PingpongSendsTheMessageBack) {
  const CopyLegs round_trip = pair_legs(Pattern::pingpong, false);
  ASSERT_EQ(round_trip.legs.size(), 2u);
  EXPECT_TRUE(round_trip.chained);
  EXPECT_EQ(round_trip.legs[1].from, round_trip.legs[0].to);
  EXPECT_EQ(round_trip.legs[1].to, kSourceReceives);
  EXPECT_EQ(round_trip.legs[0].stream, kDestinationStream) << "read: the destination pulls the message";
  EXPECT_EQ(round_trip.legs[1].stream, kSourceStream) << "and the source pulls it back";
}

TEST(P2pOptions, ResolveChecksThePairsBeforeAnyGpuIsTouched) {
  const auto resolve = [](const char* pairs) {
    RunOptions options = parse_command_line({"npgpu", "--module", "p2p", "--pairs", pairs}, module_catalog()).options;
    settle_module_options(options);
  };
  EXPECT_THROW(resolve("0to1"), UsageError);
  EXPECT_NO_THROW(resolve("all"));
}

}  // namespace
}  // namespace npgpu
