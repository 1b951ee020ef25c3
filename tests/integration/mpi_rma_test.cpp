// mpiRma: MPI one-sided puts and gets under a real mpirun, over shared memory and over TCP, every
// operation x sync x pattern, records read back; TCP slower than shared memory; 4 ranks in pairs;
// the defaults; the refusals. The planted corruption is in fault_test.cpp with the other paths'.
#include <gtest/gtest.h>

#include <cmath>

#include "checks.hpp"
#include "refusal.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

// One-sided over TCP is Open MPI's osc pt2pt: osc rdma takes no TCP, and on one node osc sm serves
// MPI_Win_allocate whatever the BTLs are. Debian's openmpi-mca-params.conf turns pt2pt off, so the
// tests name it.
const std::vector<std::string> kSharedMemory{"pml", "ob1", "btl", "self,vader"};
const std::vector<std::string> kTcp{"pml", "ob1", "btl", "tcp,self", "osc", "pt2pt"};
const char* const kPatterns[] = {"pingpong", "stream", "bidir"};

CommandResult run_rma(int ranks, const std::vector<std::string>& mca, const std::vector<std::string>& options) {
  return run_command(joined(joined(mpirun_npgpu(ranks, mca), {"--module", "mpiRma"}), options));
}

// Powers of two up to `upper`, short trials.
std::vector<std::string> short_sweep(const std::string& upper, const std::vector<std::string>& more) {
  return joined(joined(quick_sweep(upper), {"--fac2"}), more);
}

ScheduleOptions fac2_upto(std::uint64_t upper) {
  ScheduleOptions schedule = upto(upper);
  schedule.fac2 = true;
  return schedule;
}

// Times and throughput a curve can hold: positive and finite at every size.
void expect_plausible(const H5File& file, const std::string& curve) {
  for (const char* stat : {"time_median", "throughput_from_time_median"})
    for (double value : file.doubles(curve + "/" + stat)) EXPECT_TRUE(std::isfinite(value) && value > 0) << curve << " " << stat;
}

std::string fact(const H5File& file, const std::string& run, const std::string& name) {
  return file.text_attribute(run + "/system/placement/rank0", name);
}

struct Mode {
  const char* operation;
  const char* sync;
};

class EveryPattern : public testing::TestWithParam<Mode> {};

// Each pattern over each path, with every byte checked after every trial; the record says what was
// timed, and a get's pingpong counts one transfer (a get), a put's two (a round trip).
TEST_P(EveryPattern, MovesIntactDataOverSharedMemoryAndTcp) {
  const Mode& mode = GetParam();
  const std::string operation = mode.operation, sync = mode.sync;
  TempDir dir;
  for (const auto& [path, mca] : {std::pair{"shm", kSharedMemory}, std::pair{"tcp", kTcp}}) {
    const std::string record = dir.file(std::string(path) + ".h5");
    for (const char* pattern : kPatterns) {
      const CommandResult result = run_rma(2, mca, short_sweep("16K", {"--operation", operation, "--sync", sync, "--pattern",
                                                                       pattern, "--window", "8", "--check", "-o", record}));
      ASSERT_EQ(result.exit_code, 0) << path << " " << pattern << ": " << result.out << result.err;
      EXPECT_NE(result.out.find("module mpiRma, pattern " + std::string(pattern)), std::string::npos) << result.out;
    }
    H5File file(record);
    for (int i = 0; i < 3; ++i) {
      const std::string run = "/runs/000" + std::to_string(i + 1), curve = run + "/curves/rank0";
      const std::string pattern = kPatterns[i];
      expect_sound_curve(file, curve, fac2_upto(16 * 1024));
      expect_plausible(file, curve);
      EXPECT_EQ(file.text_attribute(run, "pattern"), pattern);
      EXPECT_NE(file.text_attribute(run, "data_check").find("one message checked byte for byte"), std::string::npos);
      EXPECT_EQ(fact(file, run, "rma_operation").rfind(operation, 0), 0u) << fact(file, run, "rma_operation");
      EXPECT_EQ(fact(file, run, "rma_sync").rfind(sync, 0), 0u) << fact(file, run, "rma_sync");
      EXPECT_NE(fact(file, run, "rma_memory_model").find("unified"), std::string::npos) << fact(file, run, "rma_memory_model");
      const std::vector<std::string> parameters = file.texts(run + "/system/mpi_parameters");
      EXPECT_NE(std::find(parameters.begin(), parameters.end(), "btl=" + mca[3]), parameters.end()) << path;
      const double transfers = file.doubles(curve + "/transfers_per_rep")[0];
      const std::vector<double> bytes = file.doubles(curve + "/bytes");
      if (pattern == "pingpong") {
        EXPECT_EQ(transfers, operation == "get" ? 1 : 2) << "a get is one transfer, a put's round trip two";
        EXPECT_NE(file.text_attribute(run, "timing").find(operation == "get" ? "one transfer = one get" : "half a round trip"),
                  std::string::npos)
            << file.text_attribute(run, "timing");
      } else {
        EXPECT_EQ(transfers, 8) << pattern << ": the window";
        const double per_transfer = file.doubles(curve + "/bytes_per_transfer").back();
        EXPECT_EQ(per_transfer, (pattern == "bidir" ? 2 : 1) * bytes.back()) << pattern;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(MpiRma, EveryPattern,
                         testing::Values(Mode{"put", "lock"}, Mode{"put", "fence"}, Mode{"get", "lock"}, Mode{"get", "fence"}),
                         [](const testing::TestParamInfo<Mode>& info) {
                           return std::string(info.param.operation) + "_" + info.param.sync;
                         });

// The kernel's TCP loopback (osc pt2pt's active messages) against a copy through shared memory (osc
// sm): the TCP path must be the slower, or the run did not take the path it says. A test of its
// own, as it asserts a time.
TEST(MpiRma, PutOverTcpIsSlowerThanSharedMemory) {
  TempDir dir;
  const std::string record = dir.file("both.h5");
  for (const std::vector<std::string>& mca : {kSharedMemory, kTcp}) {
    const CommandResult result = run_rma(2, mca, short_sweep("1K", {"-o", record}));
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  H5File file(record);
  EXPECT_GT(file.number_attribute("/runs/0002/curves/rank0", "summary_latency_s"),
            file.number_attribute("/runs/0001/curves/rank0", "summary_latency_s"));
}

// Nothing but --module: put, lock, pingpong, the module's default sizes, one pair 0:1.
TEST(MpiRma, RunsAtItsDefaults) {
  TempDir dir;
  const CommandResult result = run_rma(2, {}, {"--trial-time", "0.002", "--max-trials", "5", "-o", dir.file("d.h5")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("module mpiRma, pattern pingpong"), std::string::npos) << result.out;
  H5File file(dir.file("d.h5"));
  expect_sound_curve(file, "/runs/0001/curves/rank0", upto(64 * 1024 * 1024));
  expect_plausible(file, "/runs/0001/curves/rank0");
  EXPECT_EQ(file.text_attribute("/runs/0001", "pairs"), "0:1");
  EXPECT_EQ(fact(file, "/runs/0001", "rma_operation").rfind("put", 0), 0u);
  EXPECT_EQ(fact(file, "/runs/0001", "rma_sync").rfind("lock", 0), 0u);
  EXPECT_EQ(fact(file, "/runs/0001", "rma_window").rfind("MPI_Win_allocate over all 2 ranks", 0), 0u);
}

std::vector<std::string> four_rank_options(std::vector<std::string> options) {
  return joined(std::move(options), {"--trial-time", "0.002", "--max-trials", "5"});
}

// N/2 pairs at once, each pair's curve and their sum, with put and lock, then get and fence.
TEST(MpiRmaPairs, HalvesMeasureEveryPairAtOnce) {
  TempDir dir;
  const std::string record = dir.file("halves.h5");
  const std::vector<std::vector<std::string>> runs{{"--pattern", "stream", "--window", "8"},
                                                   {"--operation", "get", "--sync", "fence", "--check"}};
  for (const std::vector<std::string>& run : runs) {
    const CommandResult result =
        run_rma(4, {}, four_rank_options(joined(run, {"--pairs", "halves", "--upper", "16K", "--fac2", "-o", record})));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("all 2 pairs together: peak"), std::string::npos) << result.out;
  }
  H5File file(record);
  for (const std::string run : {"/runs/0001", "/runs/0002"}) {
    EXPECT_EQ(file.members(run + "/curves"), (std::vector<std::string>{"rank0", "rank1"}));
    EXPECT_EQ(file.number_attribute(run + "/curves/rank0", "peer"), 2);
    EXPECT_EQ(file.number_attribute(run + "/curves/rank1", "peer"), 3);
    for (const char* curve : {"/curves/rank0", "/curves/rank1"}) expect_plausible(file, run + curve);
    const std::vector<double> a = file.doubles(run + "/curves/rank0/throughput_from_time_median");
    const std::vector<double> b = file.doubles(run + "/curves/rank1/throughput_from_time_median");
    const std::vector<double> sum = file.doubles(run + "/aggregate/throughput_sum");
    ASSERT_EQ(sum.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(sum[i], a[i] + b[i], 1e-9 * sum[i]) << run;
  }
  EXPECT_NE(fact(file, "/runs/0002", "rma_window").find("one window per partner"), std::string::npos);
}

// Every ordered pair, at the matrices' default sizes (8 B pingpong, 1 MiB stream); the fenced one
// makes a window for each of a rank's three partners.
TEST(MpiRmaPairs, AllPairsGiveALatencyAndAThroughputMatrix) {
  TempDir dir;
  const std::string record = dir.file("all.h5");
  for (const std::vector<std::string>& run : {std::vector<std::string>{}, std::vector<std::string>{"--operation", "get", "--sync", "fence", "--check"}}) {
    const CommandResult result = run_rma(4, {}, four_rank_options(joined(run, {"--pairs", "all", "--window", "8", "-o", record})));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("Flagged links (throughput below 0.8 x the median"), std::string::npos) << result.out;
  }
  H5File file(record);
  for (const std::string run : {"/runs/0001", "/runs/0002"}) {
    const std::string m = run + "/matrix";
    EXPECT_EQ(file.doubles(m + "/bytes"), (std::vector<double>{8, 1024 * 1024}));
    EXPECT_EQ(file.texts(m + "/pattern"), (std::vector<std::string>{"pingpong", "stream"}));
    const std::vector<double> seconds = file.doubles(m + "/seconds");
    const std::vector<double> throughput = file.doubles(m + "/throughput");
    ASSERT_EQ(seconds.size(), 32u);
    for (std::size_t at = 0; at < 32; ++at) {
      if (at % 16 % 5 == 0) continue;  // the diagonal
      EXPECT_TRUE(std::isfinite(seconds[at]) && seconds[at] > 0) << run << " cell " << at;
      EXPECT_NEAR(throughput[at], (at < 16 ? 8 : 1024 * 1024) / seconds[at], 1e-6 * throughput[at]) << run << " cell " << at;
    }
  }
  EXPECT_NE(file.text_attribute("/runs/0002", "timing").find("pingpong gets, each completed by a fence"), std::string::npos)
      << file.text_attribute("/runs/0002", "timing");
  EXPECT_NE(fact(file, "/runs/0002", "rma_window").find("(3 here)"), std::string::npos) << fact(file, "/runs/0002", "rma_window");
}

// One pair of four ranks: the idle ranks take part in setting up, and never in a fence.
TEST(MpiRmaPairs, OnePairOfFourRanksLeavesTheOthersIdle) {
  TempDir dir;
  const CommandResult result = run_rma(4, {}, four_rank_options({"--pairs", "3:0", "--sync", "fence", "--upper", "4K", "-o", dir.file("p.h5")}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  H5File file(dir.file("p.h5"));
  EXPECT_EQ(file.members("/runs/0001/curves"), std::vector<std::string>{"rank3"});
  expect_sound_curve(file, "/runs/0001/curves/rank3", upto(4096));
  EXPECT_EQ(file.number_attribute("/runs/0001/curves/rank3", "peer"), 0);
}

struct Refused {
  const char* name;
  std::vector<std::string> options;
  const char* says;
};

class MpiRmaRefuses : public testing::TestWithParam<Refused> {};

TEST_P(MpiRmaRefuses, InOneLineWritingNothing) {
  TempDir dir;
  std::vector<std::string> argv = joined(mpirun_npgpu(2), {"--module", "mpiRma"});
  argv.insert(argv.begin() + 1, "-q");  // mpirun's own banner about the exit code is not ours
  const CommandResult result = run_command(joined(joined(argv, GetParam().options), {"-o", dir.file("r.h5")}), dir.path());
  expect_refusal(result, dir, GetParam().says);
}

// GPU buffers: refused where MPI is not CUDA-aware (this machine's; the unit tests have the other
// lines), and host memory on one rank of a pair and GPU memory on the other, anywhere.
INSTANTIATE_TEST_SUITE_P(
    BadInput, MpiRmaRefuses,
    testing::Values(Refused{"GpuBuffers", {"--buffers", "D,D"}, "CUDA-aware"},
                    Refused{"GpuBuffersOnTheSecondRank", {"--buffers", "H,D"}, "--buffers H,D: module mpiRma takes H,H or D,D"},
                    Refused{"DeviceWithHostBuffers", {"--device", "0"}, "--device applies to GPU buffers only"},
                    Refused{"AnotherModulesOption", {"--socket-buffer", "4M"}, "--socket-buffer does not apply to module mpiRma"},
                    Refused{"AnotherModulesGpuPath", {"--gpu-path", "direct"}, "--gpu-path does not apply to module mpiRma"},
                    Refused{"UnknownOperation", {"--operation", "swap"}, "--operation"},
                    Refused{"UnknownSync", {"--sync", "pscw"}, "--sync"},
                    Refused{"MessageOverIntRange", {"--upper", "3G"}, "at most 2147483647 bytes per put or get"}),
    [](const testing::TestParamInfo<Refused>& info) { return std::string(info.param.name); });

// Without osc pt2pt this Open MPI makes no window over TCP for MPI_Win_create: said in one line.
TEST(MpiRmaRefuses, AWindowMpiCannotMake) {
  TempDir dir;
  std::vector<std::string> argv = joined(mpirun_npgpu(2, {"pml", "ob1", "btl", "tcp,self"}), {"--module", "mpiRma"});
  argv.insert(argv.begin() + 1, "-q");
  const CommandResult result = run_command(joined(argv, {"--sync", "fence", "-o", dir.file("r.h5")}), dir.path());
  expect_refusal(result, dir, "module mpiRma: this MPI makes no RMA window over these ranks (MPI_Win_create: ");
}

}  // namespace
}  // namespace npgpu::test
