// The pair modules' placement checks: pure functions of what the two ranks gathered.
#include <gtest/gtest.h>

#include "pair/pair_facts.hpp"
#include "support/refusal.hpp"

namespace npgpu {
namespace {

using test::refusal;

TEST(PairFacts, CudaIpcNeedsBothRanksOnOneHost) {
  EXPECT_NO_THROW(require_one_host("cudaIpc", {"gpu-node-3", "gpu-node-3"}));
  const std::string message = refusal([] { require_one_host("cudaIpc", {"gpu-node-3", "gpu-node-4"}); });
  EXPECT_NE(message.find("module cudaIpc needs both ranks on one host, and rank 0 runs on gpu-node-3, rank 1 on "
                         "gpu-node-4"),
            std::string::npos)
      << message;
}

TEST(PairFacts, NcclNeedsTwoGpus) {
  EXPECT_NO_THROW(require_two_gpus("nccl", {"a", "a"}, {"0000:1b:00.0", "0000:43:00.0"}));
  EXPECT_NO_THROW(require_two_gpus("nccl", {"a", "b"}, {"0000:1b:00.0", "0000:1b:00.0"})) << "same slot, two hosts";
  const std::string message = refusal([] { require_two_gpus("nccl", {"a", "a"}, {"0000:1b:00.0", "0000:1b:00.0"}); });
  EXPECT_NE(message.find("both would use GPU 0000:1b:00.0 of a"), std::string::npos) << message;
}

}  // namespace
}  // namespace npgpu
