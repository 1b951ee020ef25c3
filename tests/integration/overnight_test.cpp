// Left running overnight: a rank that stops answering (SIGSTOP) or dies (SIGKILL) mid-sweep, and
// the batch system's SIGTERM or a Ctrl-C's SIGINT to mpirun. Every surviving rank stops within its
// bound, says what it waited for, exits with the documented code, and the record keeps every size
// the console showed as finished, marked failed or incomplete with why.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "support/command.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {
namespace {

using Seconds = std::chrono::duration<double>;

constexpr double kTimeoutSeconds = 5;  // --timeout of the SIGSTOP cases
// What mpirun and the survivors take past the bound (a rank's grace to let rank 0 save, the
// job's teardown), on two cores shared with other tests.
constexpr double kStopMarginSeconds = 6;
constexpr std::size_t kSizesBefore = 3;  // sizes finished before the fault

std::string host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// The console's progress lines ("[  3/105] ..."): one per size finished on every curve.
std::size_t sizes_printed(const std::string& out) {
  std::size_t count = 0;
  for (const std::string& line : lines_of(out)) count += line.rfind("[", 0) == 0 ? 1 : 0;
  return count;
}

bool has_finished_sizes(const BackgroundCommand& run, std::size_t sizes) { return sizes_printed(run.out_so_far()) >= sizes; }

// `ranks` ranks of npgpu (1: alone, no mpirun) with `args`, writing to `record`: a sweep long
// enough to be cut, its buffers small enough to be set up well within a short --timeout.
std::vector<std::string> long_run(int ranks, const std::vector<std::string>& args, const std::string& record) {
  std::vector<std::string> argv = ranks == 1 ? std::vector<std::string>{NPGPU_BINARY} : mpirun_npgpu(ranks);
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--upper", "4M", "--trial-time", "0.002", "--max-trials", "5", "--cache", "warm", "-o", record});
  return argv;
}

// The record's one run kept every size the console printed, and says how it ended: `status`, or
// `or_status` where two endings race.
void expect_sizes_kept(const std::string& record, const std::string& out, const std::string& status,
                       const std::string& or_status = "") {
  ASSERT_TRUE(std::filesystem::exists(record)) << "nothing saved";
  H5File file(record);
  ASSERT_EQ(file.members("/runs"), std::vector<std::string>{"0001"});
  const std::string ended = file.text_attribute("/runs/0001", "status");
  EXPECT_TRUE(ended == status || ended == or_status) << ended;
  EXPECT_FALSE(file.text_attribute("/runs/0001", "status_reason").empty());
  const std::size_t printed = sizes_printed(out);
  EXPECT_GE(printed, kSizesBefore);
  for (const std::string& curve : file.members("/runs/0001/curves"))
    EXPECT_EQ(file.shape("/runs/0001/curves/" + curve + "/bytes"), std::vector<hsize_t>{printed}) << curve << "\n" << out;
}

struct PeerFault {
  const char* name;
  int ranks;
  std::vector<std::string> args;
  int victim;
  int signal;
};

class PeerFaultTest : public ::testing::TestWithParam<PeerFault> {};

// SIGSTOP: the survivors' bound passes (exit 3, the run marked failed). SIGKILL: mpirun sees the
// death and SIGTERMs the survivors (each exits 4, the run marked incomplete); either way each says
// whom it waited for, where and at what.
TEST_P(PeerFaultTest, SurvivorsStopWithinTheBoundAndKeepTheFinishedSizes) {
  const PeerFault& fault = GetParam();
  TempDir dir;
  const std::string record = dir.file("overnight.h5");
  std::vector<std::string> args = fault.args;
  args.insert(args.end(), {"--timeout", std::to_string(kTimeoutSeconds)});
  BackgroundCommand run(long_run(fault.ranks, args, record), dir.path());
  ASSERT_TRUE(poll_until([&] { return has_finished_sizes(run, kSizesBefore) || run.wait_for(Seconds(0)); }, Seconds(240)));
  ASSERT_FALSE(run.wait_for(Seconds(0))) << "ended before the fault:\n" << run.wait().err;
  const pid_t victim = rank_process(run.pid(), fault.victim);
  ASSERT_GT(victim, 0);

  const auto faulted = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(victim, fault.signal), 0);
  const std::optional<CommandResult> result = run.wait_for(Seconds(kTimeoutSeconds + kStopMarginSeconds));
  const double took = Seconds(std::chrono::steady_clock::now() - faulted).count();
  ASSERT_TRUE(result) << "still running " << took << " s after the fault:\n" << run.out_so_far();
  std::printf("[ measured ] %s: every rank ended %.2f s after SIG%s of rank %d\n", fault.name, took, sigabbrev_np(fault.signal),
              fault.victim);

  const bool stopped = fault.signal == SIGSTOP;
  // A killed rank: mpirun's own exit status reports it (128 + SIGKILL); the survivors exit 4.
  EXPECT_EQ(result->exit_code, stopped ? 3 : 128 + SIGKILL) << result->err;
  // A killed rank: mpirun stops the survivors within about 1 s, often before any of them has
  // found out whom it waits for in a collective step; mpirun's own notice then names the rank.
  const std::string names_victim = "rank " + std::to_string(fault.victim) + " (" + host() + ")";
  const std::string mpirun_names_victim = "process rank " + std::to_string(fault.victim) + " with PID";
  EXPECT_TRUE(result->err.find(names_victim) != std::string::npos ||
              (!stopped && result->err.find(mpirun_names_victim) != std::string::npos &&
               result->err.find("on node " + host()) != std::string::npos))
      << result->err;
  for (const std::string& says : std::vector<std::string>{"module " + fault.args[1] + ", pattern ", ", size "})
    EXPECT_NE(result->err.find(says), std::string::npos) << says << "\n" << result->err;
  EXPECT_NE(result->err.find(stopped ? "no answer within 5 s (--timeout)" : "interrupted by SIGTERM"), std::string::npos)
      << result->err;
  for (int rank = 0; rank < fault.ranks; ++rank) {
    if (rank == fault.victim) continue;
    EXPECT_NE(result->err.find("npgpu: rank " + std::to_string(rank) + ": "), std::string::npos)
        << "rank " << rank << " said nothing:\n" << result->err;
  }
  // tcp may see the dead peer's connection reset before mpirun's SIGTERM comes: the run failed.
  const bool saved = result->err.find("saved ") != std::string::npos ||
                     result->err.find("the run failed; what it finished is in") != std::string::npos;
  EXPECT_TRUE(saved) << "rank 0 says what it saved:\n" << result->err;
  expect_sizes_kept(record, result->out, stopped ? "failed" : "incomplete", "failed");
}

const PeerFault kFaults[] = {
    {"MpiRankStopped", 2, {"--module", "mpi"}, 1, SIGSTOP},
    {"MpiRankKilled", 2, {"--module", "mpi"}, 1, SIGKILL},
    {"TcpRankStopped", 2, {"--module", "tcp"}, 1, SIGSTOP},
    {"TcpRankKilled", 2, {"--module", "tcp"}, 1, SIGKILL},
    {"MpiHalvesRankStopped", 4, {"--module", "mpi", "--pairs", "halves"}, 3, SIGSTOP},
    {"MpiHalvesRankKilled", 4, {"--module", "mpi", "--pairs", "halves"}, 2, SIGKILL},
    // An idle rank is waited for only in the collective steps: the roll call must name it.
    {"MpiIdleRankStopped", 4, {"--module", "mpi", "--pairs", "0:1"}, 3, SIGSTOP},
};

INSTANTIATE_TEST_SUITE_P(Overnight, PeerFaultTest, ::testing::ValuesIn(kFaults),
                         [](const auto& info) { return std::string(info.param.name); });

struct StopSignal {
  const char* name;
  int ranks;  // 1: npgpu alone, no mpirun
  int signal;
  const char* rank0_says;  // under mpirun, each rank gets the SIGTERM mpirun sends on either
};

class StopSignalTest : public ::testing::TestWithParam<StopSignal> {};

// What Slurm sends at the time limit, and Ctrl-C: stop within about a second (two with the other
// ranks' grace), say what was saved, exit non-zero (npgpu: 4; mpirun: its own 1, or the rank's 4
// when that reaches it first), every finished size in the record, marked incomplete, readable by
// h5py and drawn by npgpu-plot.
TEST_P(StopSignalTest, SignalledMidSweepSavesEveryFinishedSize) {
  const StopSignal& stop = GetParam();
  TempDir dir;
  const std::string record = dir.file("overnight.h5");
  BackgroundCommand run(long_run(stop.ranks, {"--module", stop.ranks == 1 ? "memcpy" : "mpi"}, record), dir.path());
  ASSERT_TRUE(poll_until([&] { return has_finished_sizes(run, kSizesBefore) || run.wait_for(Seconds(0)); }, Seconds(240)));
  ASSERT_FALSE(run.wait_for(Seconds(0))) << "ended before the signal:\n" << run.wait().err;

  const auto signalled = std::chrono::steady_clock::now();
  if (stop.signal == SIGINT) {
    run.interrupt();  // Ctrl-C; mpirun keeps its ranks out of its process group
  } else {
    ASSERT_EQ(kill(run.pid(), stop.signal), 0);  // the batch system's SIGTERM
  }
  const std::optional<CommandResult> result = run.wait_for(Seconds(kStopMarginSeconds));
  const double took = Seconds(std::chrono::steady_clock::now() - signalled).count();
  ASSERT_TRUE(result) << "still running " << took << " s after SIG" << sigabbrev_np(stop.signal);
  std::printf("[ measured ] %s: ended %.2f s after SIG%s\n", stop.name, took, sigabbrev_np(stop.signal));

  if (stop.ranks == 1) {
    EXPECT_EQ(result->exit_code, 4) << result->err;
  } else {
    EXPECT_TRUE(result->exit_code == 1 || result->exit_code == 4) << result->exit_code << "\n" << result->err;
  }
  const std::string saved = "saved " + std::to_string(sizes_printed(result->out)) + " finished sizes to " + record;
  EXPECT_NE(result->err.find(std::string("npgpu: rank 0: interrupted by ") + stop.rank0_says), std::string::npos) << result->err;
  EXPECT_NE(result->err.find(saved), std::string::npos) << saved << "\n" << result->err << result->out;
  expect_sizes_kept(record, result->out, "incomplete");
  H5File file(record);
  EXPECT_NE(file.text_attribute("/runs/0001", "status_reason").find(stop.rank0_says), std::string::npos);

  const CommandResult python = run_command(
      {"/usr/bin/python3", "-c",
       "import h5py,sys; r=h5py.File(sys.argv[1])['runs/0001']; print(r.attrs['status'], len(r['curves/rank0/bytes']))",
       record});
  EXPECT_EQ(python.exit_code, 0) << python.err;
  EXPECT_EQ(python.out, "incomplete " + std::to_string(sizes_printed(result->out)) + "\n");
  const CommandResult plot = run_command({"/usr/bin/python3", NPGPU_SOURCE_DIR "/scripts/npgpu-plot", record, "--table"}, dir.path());
  EXPECT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_NE(plot.out.find("[incomplete: "), std::string::npos) << "the plot names the run incomplete:\n" << plot.out;
  EXPECT_TRUE(std::filesystem::exists(dir.file("overnight.png")));
}

const StopSignal kStops[] = {
    {"MpirunSigterm", 2, SIGTERM, "SIGTERM"},
    {"MpirunCtrlC", 2, SIGINT, "SIGTERM"},
    {"AloneCtrlC", 1, SIGINT, "SIGINT"},
};

INSTANTIATE_TEST_SUITE_P(Overnight, StopSignalTest, ::testing::ValuesIn(kStops),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace npgpu::test
