// mpiRma's GPU buffers: taken on a CUDA-aware MPI in a CUDA build, refused in one line elsewhere:
// pure, so tested anywhere (this machine's MPI is not CUDA-aware, which the integration tests show).
#include <gtest/gtest.h>

#include "mpi_rma/rma_options.hpp"
#include "support/refusal.hpp"

namespace npgpu {
namespace {

using test::refusal;

RmaOptions with(const std::string& buffers) {
  RmaOptions options;
  options.buffers = buffers;
  return options;
}

TEST(RmaOptions, HostBuffersNeedNothingOfMpi) {
  EXPECT_NO_THROW(resolve_rma_buffers(with("H,H"), false, {false, false}));
  EXPECT_NO_THROW(resolve_rma_buffers(with("H,H"), true, {true, true}));
}

TEST(RmaOptions, GpuBuffersOnAnMpiThatIsNotCudaAwareSayWhy) {
  const std::string said = refusal([&] { resolve_rma_buffers(with("D,D"), true, {false, false}); });
  EXPECT_EQ(said.rfind("--buffers D,D: GPU buffers need an MPI that takes GPU pointers", 0), 0u) << said;
  EXPECT_NE(said.find("not CUDA-aware (asked, it says no: built without CUDA support"), std::string::npos) << said;
  const std::string off = refusal([] { resolve_rma_buffers(with("D,D"), true, {true, false}); });
  EXPECT_NE(off.find("MPIX_Query_cuda_support() says it is off"), std::string::npos) << off;
}

TEST(RmaOptions, GpuBuffersOnACudaAwareMpiNeedCudaInThisBuild) {
  EXPECT_NO_THROW(resolve_rma_buffers(with("D,D"), true, {true, true}));
  const std::string said = refusal([] { resolve_rma_buffers(with("D,D"), false, {true, true}); });
  EXPECT_NE(said.find("--buffers D,D: GPU buffers need CUDA, and this build has none"), std::string::npos) << said;
}

TEST(RmaOptions, BothRanksOfAPairTakeTheSameMemory) {
  for (const char* buffers : {"H,D", "D,H"}) {
    const std::string said = refusal([&] { resolve_rma_buffers(with(buffers), true, {true, true}); });
    EXPECT_EQ(said.rfind("--buffers " + std::string(buffers) + ": module mpiRma takes H,H or D,D", 0), 0u) << said;
  }
}

}  // namespace
}  // namespace npgpu
