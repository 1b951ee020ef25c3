// Refusals of the GPU pair modules that depend on what this build and machine have: one line,
// exit code 2, nothing written, no rank left waiting. Each test skips where it cannot apply.
#include <gtest/gtest.h>

#include "refusal.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

bool has_gpu() { return module_status("cudaIpc").find("available") != std::string::npos; }

CommandResult run_pair(const TempDir& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = mpirun_npgpu(2);
  argv.insert(argv.begin() + 1, "-q");  // mpirun's own banner about the exit code is not ours
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, dir.path());
}

TEST(PairRefusals, NcclInABuildWithoutNccl) {
  if (module_status("nccl").find("not built") == std::string::npos)
    GTEST_SKIP() << "this build has NCCL; a -DNPGPU_NCCL=OFF or CPU-only build tests this";
  EXPECT_NE(module_status("nccl").find("not built (this build has no NCCL)"), std::string::npos);
  TempDir dir;
  expect_refusal(run_pair(dir, {"--module", "nccl"}), dir, "module nccl needs NCCL, and this build has none");
}

TEST(PairRefusals, GpuBuffersOnRanksWithoutAGpu) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  const bool cuda_build = module_status("cudaIpc").find("not built") == std::string::npos;
  for (const char* buffers : {"D,D", "H,D", "D,H"}) {
    TempDir dir;
    const CommandResult result = run_pair(dir, {"--module", "mpi", "--buffers", buffers, "-o", dir.file("r.h5")});
    expect_refusal(result, dir, "--buffers " + std::string(buffers));
    // With H,D only rank 1 finds no GPU: rank 0 stops too, and says whose it was.
    if (cuda_build && std::string(buffers) == "H,D") {
      EXPECT_NE(result.err.find("rank 1: --buffers H,D puts this rank's messages in GPU memory, but"), std::string::npos)
          << result.err;
    }
  }
}

TEST(PairRefusals, DirectOnAnMpiThatIsNotCudaAware) {
  TempDir dir;
  const CommandResult result =
      run_pair(dir, {"--module", "mpi", "--buffers", "D,D", "--gpu-path", "direct", "--upper", "1K", "-o", dir.file("r.h5")});
  if (result.exit_code == 0) GTEST_SKIP() << "this MPI is CUDA-aware: direct ran";
  expect_refusal(result, dir, "--gpu-path direct: this MPI is not CUDA-aware");
}

TEST(PairRefusals, GpuModulesWithoutAGpu) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  for (const char* module : {"cudaIpc", "nccl"}) {
    TempDir dir;
    const CommandResult result = run_pair(dir, {"--module", module});
    expect_refusal(result, dir, "module " + std::string(module));
    const bool says_why = result.err.find("cannot run here: no CUDA GPU") != std::string::npos ||
                          result.err.find("this build has none") != std::string::npos;
    EXPECT_TRUE(says_why) << result.err;
  }
}

}  // namespace
}  // namespace npgpu::test
