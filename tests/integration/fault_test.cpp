// The checks are proven to catch corruption on the host paths (mpiRma's puts and gets among them): the test-only fault switch
// (--test-flip-byte, hidden from --help) flips one byte of every message from 64 KiB on, where it
// arrives; the tag (first and last byte) or --check (every byte) must catch it, and the run must
// fail on every rank together (fault_checks.hpp says what that means).
#include <gtest/gtest.h>

#include "fault_checks.hpp"

namespace npgpu::test {
namespace {

struct FaultCase {
  const char* name;
  int ranks;  // 0: no mpirun, as a user runs memcpy
  std::vector<std::string> options;
  const char* flip_offset;
  const char* found_by;
};

class CaughtFault : public testing::TestWithParam<FaultCase> {};

TEST_P(CaughtFault, FailsTheRunNamingWhereAndKeepsTheSizesBefore) {
  const FaultCase& c = GetParam();
  TempDir dir;
  const std::string record = dir.file("fault.h5");
  std::vector<std::string> argv = c.ranks > 0 ? mpirun_npgpu(c.ranks) : std::vector<std::string>{NPGPU_BINARY};
  argv.insert(argv.end(), c.options.begin(), c.options.end());
  const std::vector<std::string> sweep = fault_sweep(c.flip_offset);
  argv.insert(argv.end(), sweep.begin(), sweep.end());
  argv.insert(argv.end(), {"-o", record});
  expect_caught_fault(run_command(argv), record, c.options.at(1), c.found_by);
}

// Tags are the first and last byte: the switch flips one of them (an offset past the end is the
// last byte); --check reads every byte, so it flips one in the middle.
INSTANTIATE_TEST_SUITE_P(
    HostPaths, CaughtFault,
    testing::Values(FaultCase{"MemcpyTag", 0, {"--module", "memcpy"}, "0", kFoundByTag},
                    FaultCase{"MemcpyCheck", 0, {"--module", "memcpy", "--check"}, "777", kFoundByCheck},
                    FaultCase{"MpiTag", 2, {"--module", "mpi"}, "99999999", kFoundByTag},
                    FaultCase{"MpiCheck", 2, {"--module", "mpi", "--check"}, "777", kFoundByCheck},
                    FaultCase{"TcpTag", 2, {"--module", "tcp", "--pattern", "stream"}, "0", kFoundByTag},
                    FaultCase{"TcpCheck", 2, {"--module", "tcp", "--check"}, "777", kFoundByCheck},
                    FaultCase{"MpiRmaPutTag", 2, {"--module", "mpiRma"}, "99999999", kFoundByTag},
                    FaultCase{"MpiRmaPutWindowTag", 2, {"--module", "mpiRma", "--pattern", "stream", "--sync", "fence"}, "0", kFoundByTag},
                    FaultCase{"MpiRmaGetTag", 2, {"--module", "mpiRma", "--operation", "get", "--pattern", "bidir"}, "0", kFoundByTag},
                    FaultCase{"MpiRmaGetPingpongTag", 2, {"--module", "mpiRma", "--operation", "get"}, "99999999", kFoundByTag},
                    FaultCase{"MpiRmaPutCheck", 2, {"--module", "mpiRma", "--check"}, "777", kFoundByCheck},
                    FaultCase{"MpiRmaGetCheck", 2, {"--module", "mpiRma", "--operation", "get", "--sync", "fence", "--check"}, "777", kFoundByCheck}),
    [](const testing::TestParamInfo<FaultCase>& info) { return std::string(info.param.name); });

// The switch is for tests: a user never sees it.
TEST(FaultSwitch, IsNotInTheHelp) {
  const CommandResult help = run_command({NPGPU_BINARY, "--help"});
  ASSERT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.find("flip"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("drift"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace npgpu::test
