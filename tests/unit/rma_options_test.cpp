// mpiRma's refusal of GPU buffers, on an MPI that is CUDA-aware and on one that is not: pure, so
// tested anywhere (this machine's MPI is not CUDA-aware, which the integration tests show).
#include <gtest/gtest.h>

#include "mpi_rma/rma_options.hpp"
#include "support/refusal.hpp"

namespace npgpu {
namespace {

using test::refusal;

TEST(RmaOptions, HostBuffersNeedNothingOfMpi) {
  EXPECT_NO_THROW(resolve_rma_buffers("H,H", {false, false}));
  EXPECT_NO_THROW(resolve_rma_buffers("H,H", {true, true}));
}

TEST(RmaOptions, GpuBuffersOnAnMpiThatIsNotCudaAwareSayWhy) {
  for (const char* buffers : {"D,D", "H,D", "D,H"}) {
    const std::string said = refusal([&] { resolve_rma_buffers(buffers, {false, false}); });
    EXPECT_EQ(said.rfind("--buffers " + std::string(buffers) + ": GPU buffers need an MPI that takes GPU pointers", 0), 0u)
        << said;
    EXPECT_NE(said.find("not CUDA-aware (asked, it says no: built without CUDA support"), std::string::npos) << said;
  }
  const std::string off = refusal([] { resolve_rma_buffers("D,D", {true, false}); });
  EXPECT_NE(off.find("MPIX_Query_cuda_support() says it is off"), std::string::npos) << off;
}

TEST(RmaOptions, GpuBuffersOnACudaAwareMpiAreStillHostOnly) {
  const std::string said = refusal([] { resolve_rma_buffers("D,D", {true, true}); });
  EXPECT_NE(said.find("this MPI is CUDA-aware, but module mpiRma moves host memory only"), std::string::npos) << said;
  EXPECT_NE(said.find("--gpu-path direct"), std::string::npos) << said;
}

}  // namespace
}  // namespace npgpu
