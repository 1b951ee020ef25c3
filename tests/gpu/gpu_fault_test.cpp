// The full check is proven to catch corruption on the GPU paths: the test-only fault switch flips
// one byte of GPU (or host) memory where a copy or message landed, from 64 KiB on, and --check must
// fail the run on every rank (fault_checks.hpp). GPU messages carry no tag: --check is their check.
#include <gtest/gtest.h>

#include "../integration/fault_checks.hpp"
#include "gpu_support.hpp"

namespace npgpu::test {
namespace {

struct GpuFault {
  const char* name;
  int gpus;
  int ranks;  // 0: one process, no mpirun
  std::vector<std::string> options;
};

void PrintTo(const GpuFault& fault, std::ostream* out) { *out << fault.name; }

#ifdef NPGPU_HAVE_NCCL
constexpr bool kBuiltWithNccl = true;
#else
constexpr bool kBuiltWithNccl = false;
#endif

class CaughtGpuFault : public testing::TestWithParam<GpuFault> {};

TEST_P(CaughtGpuFault, FailsTheRunNamingWhereAndKeepsTheSizesBefore) {
  const GpuFault& fault = GetParam();
  if (const std::string why = missing_gpus(fault.gpus); !why.empty()) GTEST_SKIP() << why;
  if (fault.options.at(1) == "nccl" && !kBuiltWithNccl) GTEST_SKIP() << "this build has no NCCL";
  TempDir dir;
  const std::string record = dir.file("fault.h5");
  std::vector<std::string> argv;
  if (fault.ranks > 0) argv = {mpirun(), "-np", std::to_string(fault.ranks)};
  argv.push_back(npgpu_binary());
  argv.insert(argv.end(), fault.options.begin(), fault.options.end());
  const std::vector<std::string> sweep = fault_sweep("777");
  argv.insert(argv.end(), sweep.begin(), sweep.end());
  argv.insert(argv.end(), {"--check", "-o", record});
  expect_caught_fault(run_command(argv), record, fault.options.at(1), kFoundByCheck);
}

INSTANTIATE_TEST_SUITE_P(
    GpuPaths, CaughtGpuFault,
    testing::Values(GpuFault{"CudaMemcpyH2d", 1, 0, {"--module", "cudaMemcpy", "--direction", "h2d"}},
                    GpuFault{"CudaMemcpyD2h", 1, 0, {"--module", "cudaMemcpy", "--direction", "d2h"}},
                    GpuFault{"CudaMemcpyD2d", 1, 0, {"--module", "cudaMemcpy", "--direction", "d2d"}},
                    GpuFault{"P2p", 2, 0, {"--module", "p2p", "--pairs", "0:1"}},
                    GpuFault{"CudaIpc", 2, 2, {"--module", "cudaIpc"}},
                    GpuFault{"Nccl", 2, 2, {"--module", "nccl"}},
                    GpuFault{"MpiDeviceBuffers", 2, 2, {"--module", "mpi", "--buffers", "D,D"}}),
    [](const testing::TestParamInfo<GpuFault>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace npgpu::test
