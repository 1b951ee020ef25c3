// Each GPU module, direction, memory kind, copy method and API run briefly on real GPUs with
// --check (every byte of a full pattern through the same path after every trial), and the record
// read back. Runs alone, without mpirun, except where ranks are the point.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "../integration/checks.hpp"
#include "../integration/refusal.hpp"
#include "gpu_support.hpp"
#include "npgpu/sizes.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

struct GpuRun {
  const char* name;
  int gpus;
  std::vector<std::string> args;
  std::string upper = "64K";
};

void PrintTo(const GpuRun& run, std::ostream* out) { *out << run.name; }

ScheduleOptions schedule_upto(const std::string& upper) {
  ScheduleOptions schedule;
  schedule.upper = parse_size(upper, "--upper");
  return schedule;
}

// What every GPU record must hold beside a sound curve: both timers, where it ran, the link.
void expect_gpu_record(const H5File& file, const std::string& run) {
  EXPECT_FALSE(file.text_attribute(run, "alt_timer").empty());
  EXPECT_EQ(file.text_attribute(run, "data_check"),
            "no per-message check; after every trial, one message checked byte for byte (--check)");
  const std::string placement = run + "/system/placement/rank0";
  const std::string primary = file.text_attribute(run, "primary_timer");
  EXPECT_FALSE(primary.empty());
  EXPECT_FALSE(file.text_attribute(placement, "copy").empty());
  EXPECT_FALSE(file.text_attribute(placement, "cuda_runtime").empty());
  const bool gated = primary.rfind("cudaEvents", 0) == 0;
  for (const std::string& name : file.members(run + "/curves")) {
    const std::string curve = run + "/curves/" + name;
    const std::vector<double> main = file.doubles(curve + "/trial_seconds");
    const std::vector<double> alt = file.doubles(curve + "/trial_alt_seconds");
    ASSERT_EQ(alt.size(), main.size()) << curve << ": the second timer times every trial";
    for (std::size_t i = 0; i < main.size(); ++i) {
      if (std::isnan(main[i])) continue;
      EXPECT_GT(alt[i], 0) << curve;
      // Behind the gate the host clock spans the queueing and the synchronization too.
      if (gated) {
        EXPECT_GE(alt[i], 0.95 * main[i]) << curve << " trial " << i;
      }
    }
    file.text_attribute(curve, "link_peak_how");  // present (empty where the machine does not say)
  }
}

// Runs npgpu alone, briefly and with --check, into `record`; then checks every curve and the record.
void run_and_check(const GpuRun& run, const std::string& record) {
  std::vector<std::string> argv{NPGPU_BINARY};
  argv.insert(argv.end(), run.args.begin(), run.args.end());
  argv.insert(argv.end(), {"--check", "--upper", run.upper, "--trial-time", "0.002", "--max-trials", "3", "-o", record});
  const CommandResult result = run_command(argv);
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  H5File file(record);
  const std::vector<std::string> curves = file.members("/runs/0001/curves");
  ASSERT_FALSE(curves.empty());
  for (const std::string& curve : curves) expect_sound_curve(file, "/runs/0001/curves/" + curve, schedule_upto(run.upper));
  expect_gpu_record(file, "/runs/0001");
}

class GpuModuleRun : public ::testing::TestWithParam<GpuRun> {};

TEST_P(GpuModuleRun, MovesIntactDataAndRecordsIt) {
  const GpuRun& run = GetParam();
  if (const std::string why = missing_gpus(run.gpus); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  run_and_check(run, dir.file("g.h5"));
}

std::vector<std::string> copy(const char* module, const char* direction, const char* memory, const char* method,
                              const char* api) {
  std::vector<std::string> args{"--module", module, "--direction", direction, "--copy", method};
  if (std::string(direction) != "d2d") args.insert(args.end(), {"--memory", memory});
  if (std::string(memory) != "pageable") args.insert(args.end(), {"--api", api});
  return args;
}

std::vector<std::string> p2p(const char* access, const char* pattern, const char* method, const char* pairs = "0:1") {
  return {"--module", "p2p", "--p2p", access, "--pattern", pattern, "--copy", method, "--pairs", pairs};
}

const GpuRun kRuns[] = {
    {"RuntimeH2dPinned", 1, copy("cudaMemcpy", "h2d", "pinned", "ce", "async")},
    {"RuntimeD2hPinned", 1, copy("cudaMemcpy", "d2h", "pinned", "ce", "async")},
    {"RuntimeD2d", 1, copy("cudaMemcpy", "d2d", "pinned", "ce", "async")},
    {"RuntimeRoundTripPinned", 1, copy("cudaMemcpy", "h2d2h", "pinned", "ce", "async")},
    {"RuntimeBidirPinned", 1, copy("cudaMemcpy", "bidir", "pinned", "ce", "async")},
    {"RuntimeH2dPinnedSync", 1, copy("cudaMemcpy", "h2d", "pinned", "ce", "sync")},
    {"RuntimeD2hPinnedSync", 1, copy("cudaMemcpy", "d2h", "pinned", "ce", "sync")},
    {"RuntimeRoundTripPinnedSync", 1, copy("cudaMemcpy", "h2d2h", "pinned", "ce", "sync")},
    {"RuntimeD2dSync", 1, copy("cudaMemcpy", "d2d", "pinned", "ce", "sync")},
    {"RuntimeH2dPageable", 1, copy("cudaMemcpy", "h2d", "pageable", "ce", "sync")},
    {"RuntimeD2hPageable", 1, copy("cudaMemcpy", "d2h", "pageable", "ce", "sync")},
    {"RuntimeRoundTripPageable", 1, copy("cudaMemcpy", "h2d2h", "pageable", "ce", "sync")},
    {"RuntimeH2dWriteCombined", 1, copy("cudaMemcpy", "h2d", "write-combined", "ce", "async")},
    {"RuntimeD2hWriteCombinedSync", 1, copy("cudaMemcpy", "d2h", "write-combined", "ce", "sync")},
    {"RuntimeH2dRegistered", 1, copy("cudaMemcpy", "h2d", "registered", "ce", "async")},
    {"RuntimeD2hRegisteredSync", 1, copy("cudaMemcpy", "d2h", "registered", "ce", "sync")},
    {"RuntimeBidirRegistered", 1, copy("cudaMemcpy", "bidir", "registered", "ce", "async")},
    {"KernelH2dPinned", 1, copy("cudaMemcpy", "h2d", "pinned", "sm", "async")},
    {"KernelD2hPinned", 1, copy("cudaMemcpy", "d2h", "pinned", "sm", "async")},
    {"KernelD2d", 1, copy("cudaMemcpy", "d2d", "pinned", "sm", "async")},
    {"KernelRoundTripPinned", 1, copy("cudaMemcpy", "h2d2h", "pinned", "sm", "async")},
    {"KernelBidirPinned", 1, copy("cudaMemcpy", "bidir", "pinned", "sm", "async")},
    {"KernelH2dRegistered", 1, copy("cudaMemcpy", "h2d", "registered", "sm", "async")},
    {"KernelD2hWriteCombined", 1, copy("cudaMemcpy", "d2h", "write-combined", "sm", "async")},
    {"KernelD2dSync", 1, copy("cudaMemcpy", "d2d", "pinned", "sm", "sync")},
    {"KernelD2dLargeOddSizes", 1, copy("cudaMemcpy", "d2d", "pinned", "sm", "async"), "3M"},
    {"RuntimeH2dLargeOddSizes", 1, copy("cudaMemcpy", "h2d", "pinned", "ce", "async"), "3M"},
    {"DriverH2dPinned", 1, copy("cuMemcpy", "h2d", "pinned", "ce", "async")},
    {"DriverD2hPinned", 1, copy("cuMemcpy", "d2h", "pinned", "ce", "async")},
    {"DriverD2d", 1, copy("cuMemcpy", "d2d", "pinned", "ce", "async")},
    {"DriverRoundTripPinned", 1, copy("cuMemcpy", "h2d2h", "pinned", "ce", "async")},
    {"DriverBidirPinned", 1, copy("cuMemcpy", "bidir", "pinned", "ce", "async")},
    {"DriverH2dPageable", 1, copy("cuMemcpy", "h2d", "pageable", "ce", "sync")},
    {"DriverD2hRegisteredSync", 1, copy("cuMemcpy", "d2h", "registered", "ce", "sync")},
    {"DriverD2dSync", 1, copy("cuMemcpy", "d2d", "pinned", "ce", "sync")},
    {"PeerWriteEngine", 2, p2p("write", "stream", "ce")},
    {"PeerReadEngine", 2, p2p("read", "stream", "ce")},
    {"PeerBidirEngine", 2, p2p("write", "bidir", "ce")},
    {"PeerRoundTripReadEngine", 2, p2p("read", "pingpong", "ce")},
    {"PeerWriteKernel", 2, p2p("write", "stream", "sm")},
    {"PeerReadKernelBackwards", 2, p2p("read", "stream", "sm", "1:0")},
    {"PeerBidirReadKernel", 2, p2p("read", "bidir", "sm")},
    {"PeerRoundTripKernel", 2, p2p("write", "pingpong", "sm")},
};

INSTANTIATE_TEST_SUITE_P(Gpu, GpuModuleRun, ::testing::ValuesIn(kRuns),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(GpuModules, PairsAllMeasuresEveryOrderedPair) {
  if (const std::string why = missing_gpus(2); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  run_and_check({"PeerAllPairs", 2, p2p("write", "stream", "ce", "all"), "4K"}, dir.file("p.h5"));
  if (HasFatalFailure()) return;
  H5File file(dir.file("p.h5"));
  const int gpus = cuda_device_count();
  EXPECT_EQ(file.members("/runs/0001/curves").size(), static_cast<std::size_t>(gpus * (gpus - 1)));
  EXPECT_TRUE(file.exists("/runs/0001/curves/rank0_gpu1_to_gpu0"));
  EXPECT_FALSE(file.text_attribute("/runs/0001/system/placement/rank0", "path_gpu0_to_gpu1").empty())
      << "the record says whether the pair has peer access and over which link";
}

TEST(GpuModules, EachRankTakesTheGpuOfItsNodeLocalRank) {
  if (const std::string why = missing_gpus(2); !why.empty()) GTEST_SKIP() << why;
  if (!std::filesystem::exists(NPGPU_MPIEXEC)) GTEST_SKIP() << NPGPU_MPIEXEC << " is not on this machine";
  TempDir dir;
  std::vector<std::string> argv = mpirun_npgpu(2);
  argv.insert(argv.end(), {"--module", "cudaMemcpy", "--check", "-o", dir.file("r.h5")});
  const std::vector<std::string> quick = quick_sweep("16K");
  argv.insert(argv.end(), quick.begin(), quick.end());
  const CommandResult result = run_command(argv);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  H5File file(dir.file("r.h5"));
  EXPECT_EQ(file.members("/runs/0001/curves"), (std::vector<std::string>{"rank0", "rank1"}));
  EXPECT_EQ(file.text_attribute("/runs/0001/system/placement/rank0", "gpu"), "0");
  EXPECT_EQ(file.text_attribute("/runs/0001/system/placement/rank1", "gpu"), "1");
  EXPECT_NE(file.text_attribute("/runs/0001/system/placement/rank0", "gpu_uuid"),
            file.text_attribute("/runs/0001/system/placement/rank1", "gpu_uuid"));
}

// Refusals that need a GPU to be decided: one line, exit code 2, nothing written.
TEST(GpuRefusals, DeviceIndexOutOfRange) {
  if (const std::string why = missing_gpus(1); !why.empty()) GTEST_SKIP() << why;
  expect_refusal({"--module", "cudaMemcpy", "--device", "99"}, "--device 99: this node has");
}

TEST(GpuRefusals, PairWithAGpuThatIsNotThere) {
  if (const std::string why = missing_gpus(2); !why.empty()) GTEST_SKIP() << why;
  expect_refusal({"--module", "p2p", "--pairs", "0:99"}, "--pairs 0:99: this node has");
}

TEST(GpuRefusals, PeerCopiesWithOneGpu) {
  if (const std::string why = missing_gpus(1); !why.empty()) GTEST_SKIP() << why;
  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  expect_refusal({"--module", "p2p"}, "p2p copies between two GPUs, and this node has 1 GPU");
  unsetenv("CUDA_VISIBLE_DEVICES");
}

TEST(GpuRefusals, MessagesThatDoNotFitInGpuMemory) {
  if (const std::string why = missing_gpus(1); !why.empty()) GTEST_SKIP() << why;
  expect_refusal({"--module", "cudaMemcpy", "--direction", "d2d", "--lower", "1G", "--upper", "4000G"},
                 "of memory on GPU 0");
}

}  // namespace
}  // namespace npgpu::test
