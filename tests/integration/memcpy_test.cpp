#include <gtest/gtest.h>

#include "checks.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

TEST(MemcpyModule, RunsWithoutMpirun) {
  TempDir dir;
  std::vector<std::string> argv{NPGPU_BINARY, "--module", "memcpy", "-o", dir.file("m.h5")};
  const std::vector<std::string> quick = quick_sweep("256K");
  argv.insert(argv.end(), quick.begin(), quick.end());
  const CommandResult result = run_command(argv);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  H5File file(dir.file("m.h5"));
  expect_sound_curve(file, "/runs/0001/curves/rank0", upto(256 * 1024));
  EXPECT_EQ(file.text_attribute("/runs/0001", "pattern"), "stream") << "memcpy's default pattern";
  EXPECT_NE(file.text_attribute("/runs/0001", "throughput_meaning").find("twice"), std::string::npos)
      << "a local copy must say which byte count it reports";
  EXPECT_EQ(file.text_attribute("/runs/0001", "cache"), "cold");
}

TEST(MemcpyModule, EveryRankMeasuresItsOwnCurve) {
  TempDir dir;
  std::vector<std::string> argv = mpirun_npgpu(2);
  argv.insert(argv.end(), {"--module", "memcpy", "--pattern", "pingpong", "--cache", "warm", "-o", dir.file("m.h5")});
  const std::vector<std::string> quick = quick_sweep("32K");
  argv.insert(argv.end(), quick.begin(), quick.end());
  const CommandResult result = run_command(argv);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("sum"), std::string::npos) << "the console adds the ranks up: " << result.out;
  H5File file(dir.file("m.h5"));
  EXPECT_EQ(file.members("/runs/0001/curves"), (std::vector<std::string>{"rank0", "rank1"}));
  for (const char* curve : {"/runs/0001/curves/rank0", "/runs/0001/curves/rank1"})
    expect_sound_curve(file, curve, upto(32 * 1024));
  EXPECT_EQ(file.text_attribute("/runs/0001", "cache"), "warm");
}

}  // namespace
}  // namespace npgpu::test
