// The pair modules' placement checks: pure functions of what the ranks gathered and the pairing.
#include <gtest/gtest.h>

#include "pair/pair_facts.hpp"
#include "support/refusal.hpp"

namespace npgpu {
namespace {

using test::refusal;

TEST(PairFacts, CudaIpcNeedsEachPairOnOneHost) {
  const RankPairing halves = parse_rank_pairing("halves", 4, 0, 0);
  EXPECT_NO_THROW(require_one_host("cudaIpc", {"node-3", "node-3"}, parse_rank_pairing("0:1", 2, 0, 0)));
  EXPECT_NO_THROW(require_one_host("cudaIpc", {"a", "b", "a", "b"}, halves)) << "0 with 2 and 1 with 3";
  EXPECT_NO_THROW(require_one_host("cudaIpc", {"a", "a", "b", "b"}, parse_rank_pairing("2:3", 4, 0, 0)))
      << "the idle ranks may be anywhere";
  const std::string message = refusal([&] { require_one_host("cudaIpc", {"a", "a", "b", "b"}, halves); });
  EXPECT_NE(message.find("module cudaIpc needs the two ranks of each pair on one host, and rank 0 runs on a, rank 2 on b"),
            std::string::npos)
      << message;
  EXPECT_THROW(require_one_host("cudaIpc", {"a", "a", "a", "b"}, parse_rank_pairing("all", 4, 0, 0)), UsageError);
}

TEST(PairFacts, NcclNeedsEachRankOnItsOwnGpu) {
  EXPECT_NO_THROW(require_own_gpus("nccl", {"a", "a"}, {"0000:1b:00.0", "0000:43:00.0"}));
  EXPECT_NO_THROW(require_own_gpus("nccl", {"a", "b"}, {"0000:1b:00.0", "0000:1b:00.0"})) << "same slot, two hosts";
  const std::string message =
      refusal([] { require_own_gpus("nccl", {"a", "b", "a"}, {"0000:1b:00.0", "0000:1b:00.0", "0000:1b:00.0"}); });
  EXPECT_NE(message.find("ranks 0 and 2 would both use GPU 0000:1b:00.0 of a"), std::string::npos) << message;
}

}  // namespace
}  // namespace npgpu
