#include <gtest/gtest.h>

#include "checks.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

CommandResult run_mpi(const std::vector<std::string>& mca, const std::vector<std::string>& options) {
  std::vector<std::string> argv = mpirun_npgpu(2, mca);
  argv.insert(argv.end(), {"--module", "mpi"});
  argv.insert(argv.end(), options.begin(), options.end());
  return run_command(argv);
}

std::vector<std::string> with(std::vector<std::string> options, const std::vector<std::string>& more) {
  options.insert(options.end(), more.begin(), more.end());
  return options;
}

TEST(MpiModule, PingpongOverSharedMemory) {
  TempDir dir;
  const CommandResult result = run_mpi({"pml", "ob1", "btl", "self,vader"}, with(quick_sweep(), {"-o", dir.file("shm.h5")}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("module mpi, pattern pingpong"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("small-message latency"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("record: " + dir.file("shm.h5") + " (/runs/0001)"), std::string::npos) << result.out;

  H5File file(dir.file("shm.h5"));
  expect_sound_curve(file, "/runs/0001/curves/rank0", upto(64 * 1024));
  EXPECT_EQ(file.members("/runs/0001/curves"), std::vector<std::string>{"rank0"}) << "a pair has one curve";
  EXPECT_EQ(file.text_attribute("/runs/0001", "pattern"), "pingpong");
  EXPECT_EQ(file.number_attribute("/runs/0001", "ranks"), 2);
  const std::vector<std::string> parameters = file.texts("/runs/0001/system/mpi_parameters");
  EXPECT_NE(std::find(parameters.begin(), parameters.end(), "btl=self,vader"), parameters.end());
  EXPECT_EQ(file.doubles("/runs/0001/curves/rank0/transfers_per_rep")[0], 2) << "a round trip is two transfers";
}

TEST(MpiModule, PingpongOverTcpIsRecordedAndSlowerThanSharedMemory) {
  TempDir dir;
  const std::vector<std::string> options = with(quick_sweep("4K"), {"-o", dir.file("both.h5")});
  ASSERT_EQ(run_mpi({"pml", "ob1", "btl", "self,vader"}, options).exit_code, 0);
  const CommandResult tcp = run_mpi({"pml", "ob1", "btl", "tcp,self"}, options);
  ASSERT_EQ(tcp.exit_code, 0) << tcp.err;

  H5File file(dir.file("both.h5"));
  expect_sound_curve(file, "/runs/0002/curves/rank0", upto(4096));
  const std::vector<std::string> parameters = file.texts("/runs/0002/system/mpi_parameters");
  EXPECT_NE(std::find(parameters.begin(), parameters.end(), "btl=tcp,self"), parameters.end());
  // Loopback TCP crosses the kernel's network stack; shared memory is a copy between processes.
  EXPECT_GT(file.number_attribute("/runs/0002/curves/rank0", "summary_latency_s"),
            file.number_attribute("/runs/0001/curves/rank0", "summary_latency_s"));
}

TEST(MpiModule, StreamCountsTheWindow) {
  TempDir dir;
  const CommandResult result =
      run_mpi({}, with(quick_sweep("16K"), {"--pattern", "stream", "--window", "8", "-o", dir.file("s.h5")}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  H5File file(dir.file("s.h5"));
  expect_sound_curve(file, "/runs/0001/curves/rank0", upto(16 * 1024));
  EXPECT_EQ(file.text_attribute("/runs/0001", "pattern"), "stream");
  for (double transfers : file.doubles("/runs/0001/curves/rank0/transfers_per_rep")) EXPECT_EQ(transfers, 8);
}

TEST(MpiModule, BidirCountsBothDirections) {
  TempDir dir;
  const CommandResult result = run_mpi({}, with(quick_sweep("16K"), {"--pattern", "bidir", "-o", dir.file("b.h5")}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  H5File file(dir.file("b.h5"));
  expect_sound_curve(file, "/runs/0001/curves/rank0", upto(16 * 1024));
  const std::vector<double> bytes = file.doubles("/runs/0001/curves/rank0/bytes");
  const std::vector<double> counted = file.doubles("/runs/0001/curves/rank0/bytes_per_transfer");
  for (std::size_t i = 0; i < bytes.size(); ++i) EXPECT_EQ(counted[i], 2 * bytes[i]);
  EXPECT_EQ(file.text_attribute("/runs/0001", "pattern"), "bidir");
}

TEST(MpiModule, FullDataCheckAndOtherTimers) {
  TempDir dir;
  for (const char* timer : {"gettimeofday", "mpi"}) {
    const CommandResult result =
        run_mpi({}, with(quick_sweep("8K"), {"--check", "--timer", timer, "-o", dir.file("t.h5")}));
    ASSERT_EQ(result.exit_code, 0) << timer << ": " << result.err;
  }
  H5File file(dir.file("t.h5"));
  EXPECT_EQ(file.text_attribute("/runs/0001", "timer"), "gettimeofday");
  EXPECT_EQ(file.text_attribute("/runs/0001", "data_check"),
            "a tag in the first and last byte of every message; after every trial, one message checked byte for "
            "byte (--check)");
  EXPECT_EQ(file.text_attribute("/runs/0001", "primary_timer"),
            "host clock (--timer gettimeofday: gettimeofday (wall time, microseconds))");
  EXPECT_NEAR(file.number_attribute("/runs/0001", "timer_resolution_s"), 1e-6, 1e-9) << "gettimeofday ticks in us";
  EXPECT_EQ(file.text_attribute("/runs/0002", "timer"), "mpi");
  EXPECT_GT(file.number_attribute("/runs/0002", "timer_resolution_s"), 0);
  expect_sound_curve(file, "/runs/0002/curves/rank0", upto(8 * 1024));
}

}  // namespace
}  // namespace npgpu::test
