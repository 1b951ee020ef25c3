// ucx between ranks through UCX's UCP on this machine, under a real mpirun, records read back.
// Each test skips, saying why, in a build without UCX; one test checks that build's refusal.
#include <gtest/gtest.h>

#include <cmath>

#include "checks.hpp"
#include "fault_checks.hpp"
#include "refusal.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

bool ucx_built() { return module_status("ucx").find("not built") == std::string::npos; }

#define SKIP_WITHOUT_UCX()                                                                            \
  if (!ucx_built())                                                                                   \
  GTEST_SKIP() << "this build has no UCX (pkg-config found no ucx, or -DNPGPU_UCX=OFF): ucx is listed as " \
               << module_status("ucx")

// UCX picks its transports (here sysv or posix shared memory, and cma for rendezvous; ucx_info -d
// lists them) unless `variables` set UCX_TLS.
CommandResult run_ucx(int ranks, const std::vector<std::string>& options, const std::filesystem::path& dir = {},
                      const std::vector<std::string>& variables = {}) {
  std::vector<std::string> argv = mpirun_npgpu(ranks);
  const std::vector<std::string> environment = exported(variables);
  argv.insert(argv.begin() + 1, environment.begin(), environment.end());
  argv.insert(argv.begin() + 1, "-q");  // mpirun's own banner about an exit code is not ours
  argv.insert(argv.end(), {"--module", "ucx"});
  argv.insert(argv.end(), options.begin(), options.end());
  return run_command(argv, dir);
}

std::vector<std::string> sweep_to(const std::string& upper, std::vector<std::string> more) {
  std::vector<std::string> options = quick_sweep(upper);
  options.push_back("--fac2");
  options.insert(options.end(), more.begin(), more.end());
  return options;
}

ScheduleOptions fac2_upto(std::uint64_t upper) {
  ScheduleOptions schedule = upto(upper);
  schedule.fac2 = true;
  return schedule;
}

TEST(UcxTag, EveryPatternMovesIntactDataAndTheRecordSaysHow) {
  SKIP_WITHOUT_UCX();
  TempDir dir;
  const std::string record = dir.file("ucx.h5");
  for (const char* pattern : {"pingpong", "stream", "bidir"}) {
    const CommandResult result = run_ucx(2, sweep_to("256K", {"--pattern", pattern, "--window", "8", "--check", "-o", record}));
    ASSERT_EQ(result.exit_code, 0) << pattern << ": " << result.err;
    EXPECT_NE(result.out.find("module ucx, pattern " + std::string(pattern)), std::string::npos) << result.out;
  }
  H5File file(record);
  for (const char* run : {"/runs/0001", "/runs/0002", "/runs/0003"}) {
    expect_sound_curve(file, std::string(run) + "/curves/rank0", fac2_upto(256 * 1024));
    EXPECT_NE(file.text_attribute(run, "data_check").find("a tag in the first and last byte of every message"),
              std::string::npos);
    EXPECT_NE(file.text_attribute(run, "data_check").find("one message checked byte for byte"), std::string::npos);
  }
  EXPECT_EQ(file.doubles("/runs/0002/curves/rank0/transfers_per_rep")[0], 8) << "stream: the window";
  const std::vector<double> bytes = file.doubles("/runs/0003/curves/rank0/bytes");
  EXPECT_EQ(file.doubles("/runs/0003/curves/rank0/bytes_per_transfer").back(), 2 * bytes.back()) << "bidir: both ways";

  const std::string rank0 = "/runs/0001/system/placement/rank0";
  EXPECT_EQ(file.text_attribute(rank0, "ucx_operation"), "tag: ucp_tag_send_nbx, ucp_tag_recv_nbx");
  EXPECT_EQ(file.text_attribute(rank0, "ucx_peer_rank"), "1");
  EXPECT_NE(file.text_attribute(rank0, "ucx_tag_protocols").find("<egr/short>"), std::string::npos)
      << file.text_attribute(rank0, "ucx_tag_protocols");
  EXPECT_NE(file.text_attribute(rank0, "ucx_lanes").find("/memory (am am_bw#0)"), std::string::npos)
      << "shared memory: " << file.text_attribute(rank0, "ucx_lanes");
  EXPECT_GT(std::stod(file.text_attribute(rank0, "ucx_first_exchange_s")), 0);
}

// UCX's TCP transport through the kernel's loopback: the record says which transport UCX took and
// that UCX_TLS chose it, and the round trip is slower than shared memory's.
TEST(UcxTag, OverTcpWhenUcxTlsSaysSo) {
  SKIP_WITHOUT_UCX();
  TempDir dir;
  const std::string record = dir.file("tcp.h5");
  ASSERT_EQ(run_ucx(2, sweep_to("4K", {"-o", record})).exit_code, 0);
  const CommandResult tcp = run_ucx(2, sweep_to("4K", {"--check", "-o", record}), {}, {"UCX_TLS=tcp"});
  ASSERT_EQ(tcp.exit_code, 0) << tcp.err;
  H5File file(record);
  expect_sound_curve(file, "/runs/0002/curves/rank0", fac2_upto(4096));
  const std::string rank0 = "/runs/0002/system/placement/rank0";
  EXPECT_EQ(file.text_attribute(rank0, "ucx_environment"), "UCX_TLS=tcp");
  EXPECT_EQ(file.text_attribute(rank0, "ucx_lanes").rfind("tcp/", 0), 0u) << file.text_attribute(rank0, "ucx_lanes");
  EXPECT_GT(file.number_attribute("/runs/0002/curves/rank0", "summary_latency_s"),
            file.number_attribute("/runs/0001/curves/rank0", "summary_latency_s"));
}

TEST(UcxTag, DefaultSizesAndPairsReachRendezvous) {
  SKIP_WITHOUT_UCX();
  TempDir dir;
  const CommandResult result = run_ucx(2, {"--trial-time", "0.002", "--max-trials", "3", "-o", dir.file("d.h5")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  H5File file(dir.file("d.h5"));
  expect_sound_curve(file, "/runs/0001/curves/rank0", upto(64 * 1024 * 1024));
  EXPECT_EQ(file.text_attribute("/runs/0001", "pairs"), "0:1");
  EXPECT_EQ(file.text_attribute("/runs/0001", "pattern"), "pingpong");
  EXPECT_EQ(file.text_attribute("/runs/0001/curves/rank0", "link_peak_how").rfind("none: both ranks are on one host", 0), 0u);
  // The default sweep crosses UCX's switch to rendezvous: the record says where it is.
  EXPECT_NE(file.text_attribute("/runs/0001/system/placement/rank0", "ucx_tag_protocols").find("<rndv>"), std::string::npos);
}

TEST(UcxTag, HalvesAndAllPairsWithFourRanks) {
  SKIP_WITHOUT_UCX();
  TempDir dir;
  const std::string record = dir.file("pairs.h5");
  const CommandResult halves =
      run_ucx(4, sweep_to("16K", {"--pairs", "halves", "--pattern", "stream", "--window", "8", "--check", "-o", record}));
  ASSERT_EQ(halves.exit_code, 0) << halves.err;
  EXPECT_NE(halves.out.find("all 2 pairs together: peak"), std::string::npos) << halves.out;
  const CommandResult all = run_ucx(4, {"--pairs", "all", "--sizes", "8,64K", "--window", "8", "--check", "--trial-time",
                                        "0.002", "--max-trials", "5", "-o", record});
  ASSERT_EQ(all.exit_code, 0) << all.err;

  H5File file(record);
  EXPECT_EQ(file.members("/runs/0001/curves"), (std::vector<std::string>{"rank0", "rank1"}));
  EXPECT_EQ(file.number_attribute("/runs/0001/curves/rank1", "peer"), 3);
  const std::vector<double> a = file.doubles("/runs/0001/curves/rank0/throughput_from_time_median");
  const std::vector<double> b = file.doubles("/runs/0001/curves/rank1/throughput_from_time_median");
  const std::vector<double> sum = file.doubles("/runs/0001/aggregate/throughput_sum");
  ASSERT_EQ(sum.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(sum[i], a[i] + b[i], 1e-9 * sum[i]);

  const std::vector<double> seconds = file.doubles("/runs/0002/matrix/seconds");
  ASSERT_EQ(seconds.size(), 32u);
  for (std::size_t cell = 0; cell < 32; ++cell)
    EXPECT_EQ(std::isnan(seconds[cell]), cell % 16 % 5 == 0) << "every off-diagonal cell measured: " << cell;
  EXPECT_EQ(file.text_attribute("/runs/0002/system/placement/rank0", "ucx_endpoints"), "3 (one per partner)");
}

// put: each message lands at its place in the peer's mapped pool (cold by default, so each
// repetition's slot is another place), flushed, then noticed by a tag message; every tag and byte
// checked over every pattern, and the record names the put protocols of the RMA lanes.
TEST(UcxPut, EveryPatternMovesIntactDataIntoThePeersPool) {
  SKIP_WITHOUT_UCX();
  TempDir dir;
  const std::string record = dir.file("put.h5");
  for (const char* pattern : {"pingpong", "stream", "bidir"}) {
    const CommandResult result =
        run_ucx(2, sweep_to("256K", {"--operation", "put", "--pattern", pattern, "--window", "8", "--check", "-o", record}));
    ASSERT_EQ(result.exit_code, 0) << pattern << ": " << result.err;
  }
  H5File file(record);
  for (const char* run : {"/runs/0001", "/runs/0002", "/runs/0003"}) {
    expect_sound_curve(file, std::string(run) + "/curves/rank0", fac2_upto(256 * 1024));
    const std::string rank0 = std::string(run) + "/system/placement/rank0";
    EXPECT_EQ(file.text_attribute(rank0, "ucx_operation").rfind("put: ucp_put_nbx", 0), 0u);
    EXPECT_NE(file.text_attribute(rank0, "ucx_lanes").find("rma_bw"), std::string::npos) << file.text_attribute(rank0, "ucx_lanes");
    EXPECT_NE(file.text_attribute(rank0, "ucx_put_protocols").find("/memory 0..<short>"), std::string::npos)
        << file.text_attribute(rank0, "ucx_put_protocols");
  }
}

TEST(UcxPut, HalvesAndAllPairsWithFourRanks) {
  SKIP_WITHOUT_UCX();
  TempDir dir;
  const std::string record = dir.file("pairs.h5");
  const CommandResult halves = run_ucx(4, sweep_to("16K", {"--operation", "put", "--pairs", "halves", "--check", "-o", record}));
  ASSERT_EQ(halves.exit_code, 0) << halves.err;
  const CommandResult all = run_ucx(4, {"--operation", "put", "--pairs", "all", "--sizes", "8,64K", "--window", "8", "--check",
                                        "--trial-time", "0.002", "--max-trials", "5", "-o", record});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  H5File file(record);
  EXPECT_EQ(file.members("/runs/0001/curves"), (std::vector<std::string>{"rank0", "rank1"}));
  const std::vector<double> seconds = file.doubles("/runs/0002/matrix/seconds");
  ASSERT_EQ(seconds.size(), 32u);
  for (std::size_t cell = 0; cell < 32; ++cell)
    EXPECT_EQ(std::isnan(seconds[cell]), cell % 16 % 5 == 0) << "every off-diagonal cell measured: " << cell;
}

TEST(Ucx, CorruptionIsCaughtByTheTagAndByCheck) {
  SKIP_WITHOUT_UCX();
  for (const auto& [options, offset, found_by] :
       std::vector<std::tuple<std::vector<std::string>, const char*, const char*>>{
           {{"--pattern", "stream"}, "0", kFoundByTag},
           {{"--check"}, "777", kFoundByCheck},
           {{"--operation", "put"}, "0", kFoundByTag}}) {
    TempDir dir;
    const std::string record = dir.file("fault.h5");
    std::vector<std::string> argv = options;
    const std::vector<std::string> sweep = fault_sweep(offset);
    argv.insert(argv.end(), sweep.begin(), sweep.end());
    argv.insert(argv.end(), {"-o", record});
    expect_caught_fault(run_ucx(2, argv), record, "ucx", found_by);
  }
}

TEST(UcxRefusals, OneLineExitTwoNothingWritten) {
  SKIP_WITHOUT_UCX();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--socket-buffer", "4M"}, "--socket-buffer does not apply to module ucx (it applies to tcp)"},
      {{"--operation", "get"}, "--operation: get not in {tag,put}"},
  };
  for (const auto& [options, says] : cases) {
    TempDir dir;
    std::vector<std::string> args = options;
    args.insert(args.end(), {"-o", dir.file("r.h5")});
    expect_refusal(run_ucx(2, args, dir.path()), dir, says);
  }
  expect_refusal({"--module", "ucx"}, "needs at least 2, and this run has 1");
}

TEST(UcxRefusals, ByNameInABuildWithoutUcx) {
  if (ucx_built()) GTEST_SKIP() << "this build has UCX; a -DNPGPU_UCX=OFF build tests this";
  EXPECT_NE(module_status("ucx").find("not built (this build has no UCX)"), std::string::npos);
  expect_refusal({"--module", "ucx"}, "module ucx needs UCX, and this build has none");
}

}  // namespace
}  // namespace npgpu::test
