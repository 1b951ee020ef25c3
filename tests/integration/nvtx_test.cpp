// --nvtx: the ranges reach an NVTX tool (our recorder, loaded the way Nsight Systems is), named
// after the size and the trial, each one closed; a build without NVTX refuses the option.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "refusal.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

#ifdef NPGPU_NVTX_RECORDER
TEST(Nvtx, RangesAroundEverySizeAndTrialReachTheTool) {
  TempDir dir;
  const std::string record = dir.file("ranges.txt");
  setenv("NVTX_INJECTION64_PATH", NPGPU_NVTX_RECORDER, 1);
  setenv("NPGPU_NVTX_RECORD", record.c_str(), 1);
  const CommandResult result = run_command({NPGPU_BINARY, "--module", "memcpy", "--nvtx", "--fac2", "--upper", "4",
                                            "--min-trials", "3", "--max-trials", "3", "-o", dir.file("r.h5")});
  unsetenv("NVTX_INJECTION64_PATH");
  unsetenv("NPGPU_NVTX_RECORD");
  ASSERT_EQ(result.exit_code, 0) << result.err;

  std::ifstream in(record);
  std::vector<std::string> pushes;
  int depth = 0, deepest = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("push ", 0) == 0) {
      // A first trial far from --trial-time (a busy machine) re-sizes the repetitions and the
      // trials start again: its range is the first of two "trial 0".
      if (line == "push trial 0" && !pushes.empty() && pushes.back() == "trial 0") pushes.pop_back();
      pushes.push_back(line.substr(5));
      deepest = std::max(deepest, ++depth);
    } else if (line == "pop") {
      --depth;
    }
  }
  const std::vector<std::string> expected{"npgpu 1 B", "trial 0", "trial 1", "trial 2", "npgpu 2 B", "trial 0",
                                          "trial 1", "trial 2", "npgpu 4 B", "trial 0", "trial 1", "trial 2"};
  EXPECT_EQ(pushes, expected);
  EXPECT_EQ(depth, 0) << "every range is closed";
  EXPECT_EQ(deepest, 2) << "trials nest inside their size";
}
#else
TEST(Nvtx, ABuildWithoutNvtxRefusesTheOption) {
  expect_refusal({"--module", "memcpy", "--nvtx"}, "--nvtx: this build has no NVTX");
}
#endif

}  // namespace
}  // namespace npgpu::test
