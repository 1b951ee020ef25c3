// The record survives its writer: SIGKILLed at any moment, earlier runs stay byte for byte what
// they were and nothing piles up beside the file; concurrent writers lose nothing; a file npgpu
// did not write is never touched; a full disk loses neither the old file nor the new curves.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "integration/record_files.hpp"
#include "support/command.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {
namespace {

namespace fs = std::filesystem;
using Seconds = std::chrono::duration<double>;
using Clock = std::chrono::steady_clock;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every run now in the record, to compare byte for byte later.
std::map<std::string, std::map<std::string, std::string>> runs_of(const std::string& record) {
  H5File file(record);
  std::map<std::string, std::map<std::string, std::string>> runs;
  for (const std::string& run : file.members("/runs")) runs[run] = file.contents("/runs/" + run);
  return runs;
}

void expect_runs_unchanged(const std::string& record, const std::map<std::string, std::map<std::string, std::string>>& before,
                           const std::string& when) {
  H5File file(record);
  for (const auto& [run, contents] : before) {
    ASSERT_TRUE(file.exists("/runs/" + run)) << run << " lost " << when;
    EXPECT_EQ(file.contents("/runs/" + run), contents) << run << " changed " << when;
  }
}

// Where a writer was when it was killed, from the files it had open beside the record.
enum class Phase { measuring, snapshot, record_write, ended };

Phase phase_of(const std::string& record, pid_t writer) {
  const std::string mine = "-" + std::to_string(writer) + ".";
  Phase phase = Phase::measuring;
  for (const std::string& name : writers_files(record)) {
    if (name.find(mine) == std::string::npos) continue;
    if (name.ends_with(".tmp")) return Phase::record_write;  // adding a run to a copy of the record
    if (name.ends_with(".run.next")) phase = Phase::snapshot;  // replacing the lone-run file
  }
  return phase;
}

unsigned campaign_seed() {
  if (const char* given = std::getenv("NPGPU_KILL_SEED")) return static_cast<unsigned>(std::stoul(given));
  return std::random_device{}();
}

// The campaign goes on for NPGPU_KILL_SECONDS (60 by default: about 130 kills on a quiet 2-core
// machine, fewer under load), at least kMinKills, or for exactly NPGPU_KILL_RUNS kills when given.
constexpr int kMinKills = 20;
struct CampaignSize {
  int kills = 0;         // 0: by time
  double seconds = 60;
  bool more(int done, Seconds spent) const {
    return kills > 0 ? done < kills : done < kMinKills || spent.count() < seconds;
  }
};
CampaignSize campaign_size() {
  CampaignSize size;
  if (const char* runs = std::getenv("NPGPU_KILL_RUNS")) size.kills = std::stoi(runs);
  if (const char* seconds = std::getenv("NPGPU_KILL_SECONDS")) size.seconds = std::stod(seconds);
  return size;
}

// Where a run is: its final write starts once the console has printed the summary.
bool summary_printed(const BackgroundCommand& run) { return run.out_so_far().find("\nSummary (") != std::string::npos; }

// One unkilled run: how long it takes, and how long its final write (summary to exit) takes.
struct RunTimes {
  double total = 0;
  double final_write = 0;
};

RunTimes time_one_run(const std::string& record) {
  const auto start = Clock::now();
  BackgroundCommand run(quick_memcpy(record));
  EXPECT_TRUE(poll_until([&] { return summary_printed(run); }, Seconds(120))) << "never saw the summary";
  const auto summary = Clock::now();
  EXPECT_EQ(run.wait().exit_code, 0);
  return {Seconds(Clock::now() - start).count(), Seconds(Clock::now() - summary).count()};
}

struct Tally {
  std::map<Phase, int> kills;
  int finished_first = 0;
  int launcher_hung = 0;  // mpirun that never ended after its rank 0 was killed (Open MPI's PMIx)
};

constexpr Seconds kKilledRunEnds{30};

// Starts `argv`, SIGKILLs the process `writer_of` names `delay` after `from` holds (a moment
// measured from an event, not a synchronisation), and notes where it was.
template <typename WriterOf, typename From>
void kill_writer(const std::vector<std::string>& argv, const std::string& record, Seconds delay, WriterOf writer_of,
                 From from, Tally& tally) {
  BackgroundCommand run(argv);
  pid_t writer = -1;
  poll_until([&] { return (writer = writer_of(run)) > 0 || run.wait_for(Seconds(0)); }, Seconds(60));
  poll_until([&] { return from(run) || run.wait_for(Seconds(0)); }, Seconds(120));
  std::this_thread::sleep_for(delay);
  const Phase phase = writer > 0 ? phase_of(record, writer) : Phase::ended;
  if (writer <= 0 || kill(writer, SIGKILL) != 0) {
    ++tally.finished_first;
  } else {
    ++tally.kills[phase];
  }
  // Open MPI 4.1's mpirun sometimes hangs ("PMIX ERROR: UNREACHABLE") when a rank is killed early;
  // the group is killed when `run` goes away, and the record is checked as after any kill.
  if (!run.wait_for(kKilledRunEnds)) ++tally.launcher_hung;
}

TEST(RecordSafety, WriterKilledAtRandomMomentsNeverDamagesEarlierRuns) {
  TempDir dir;
  const std::string record = dir.file("campaign.h5");
  for (int i = 0; i < 2; ++i) ASSERT_EQ(run_command(quick_memcpy(record)).exit_code, 0);
  const auto before = runs_of(record);
  const RunTimes times = time_one_run(record);
  const unsigned seed = campaign_seed();
  std::printf("[ campaign ] NPGPU_KILL_SEED=%u; an unkilled run takes %.3f s, its final write %.3f s\n", seed,
              times.total, times.final_write);
  std::mt19937 random(seed);
  // Half the kills spread over the whole run from its start, half over the moments after the
  // writer's copy of the record appears (it adds the run there, then renames it over the record):
  // that write is milliseconds long, and when it starts varies with the machine's load.
  std::uniform_real_distribution<double> whole(0, times.total), into_write(0, 0.004);
  const auto from_start = [](const BackgroundCommand&) { return true; };
  const auto writing_record = [&](const BackgroundCommand& run) {
    return phase_of(record, run.pid()) == Phase::record_write;
  };

  Tally tally;
  const auto campaign_start = Clock::now();
  const CampaignSize size = campaign_size();
  int kills = 0;
  for (int i = 0; size.more(i, Clock::now() - campaign_start); ++i, ++kills) {
    const auto alone = [](const BackgroundCommand& run) { return run.pid(); };
    if (i % 2) {
      kill_writer(quick_memcpy(record), record, Seconds(into_write(random)), alone, writing_record, tally);
    } else {
      kill_writer(quick_memcpy(record), record, Seconds(whole(random)), alone, from_start, tally);
    }
    expect_runs_unchanged(record, before, "after kill " + std::to_string(i));
    if (HasFailure()) return;
  }
  // Two ranks: the writer is rank 0 of a real mpirun.
  std::vector<std::string> pair = mpirun_npgpu(2);
  pair.insert(pair.end(), {"--module", "mpi", "--upper", "1K", "--trial-time", "0.001", "--max-trials", "3", "--cache",
                           "warm", "-o", record});
  const auto pair_start = Clock::now();
  ASSERT_EQ(run_command(pair).exit_code, 0);
  std::uniform_real_distribution<double> pair_run(0, Seconds(Clock::now() - pair_start).count());
  for (int i = 0; i < 5; ++i) {
    kill_writer(pair, record, Seconds(pair_run(random)), [](const BackgroundCommand& run) { return rank_process(run.pid(), 0); },
                from_start, tally);
    expect_runs_unchanged(record, before, "after a two-rank kill");
  }
  std::printf("[ campaign ] %d kills in %.1f s: %d measuring, %d writing the lone-run file, %d adding a run to the record; "
              "%d runs ended before their kill; %d mpiruns hung after the kill\n",
              kills + 5, Seconds(Clock::now() - campaign_start).count(), tally.kills[Phase::measuring],
              tally.kills[Phase::snapshot], tally.kills[Phase::record_write], tally.finished_first,
              tally.launcher_hung);
  EXPECT_GE(tally.kills[Phase::record_write], kills / 10) << "too few kills landed in the final write";

  const CommandResult last = run_command(quick_memcpy(record));
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_TRUE(writers_files(record).empty()) << "dead writers' files left: " << writers_files(record).size();
  expect_runs_unchanged(record, before, "after the campaign");
  H5File file(record);
  int adopted = 0;
  for (const std::string& run : file.members("/runs")) {
    const std::string status = file.text_attribute("/runs/" + run, "status");
    EXPECT_TRUE(status == "complete" || status == "failed") << run << ": " << status;
    adopted += status == "failed" ? 1 : 0;
  }
  std::printf("[ campaign ] the record now holds %zu runs, %d of them adopted from killed writers\n",
              file.members("/runs").size(), adopted);
  EXPECT_GT(adopted, 0) << "no killed writer's finished sizes reached the record";
}

TEST(RecordSafety, ConcurrentRunsAppendingToOneFileLoseNothing) {
  TempDir dir;
  const std::string record = dir.file("shared.h5");
  std::vector<std::unique_ptr<BackgroundCommand>> runs;
  for (int i = 0; i < 4; ++i) runs.push_back(std::make_unique<BackgroundCommand>(quick_memcpy(record)));
  for (auto& run : runs) EXPECT_EQ(run->wait().exit_code, 0);
  H5File file(record);
  const std::vector<std::string> names = file.members("/runs");
  EXPECT_EQ(names, (std::vector<std::string>{"0001", "0002", "0003", "0004"}));
  for (const std::string& run : names) EXPECT_EQ(file.text_attribute("/runs/" + run, "status"), "complete");
  EXPECT_TRUE(writers_files(record).empty());
}

TEST(RecordSafety, HdfFileNpgpuDidNotWriteIsRefusedUntouched) {
  TempDir dir;
  const std::string foreign = dir.file("theirs.h5");
  {
    const hid_t file = H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[1] = {4};
    const int values[4] = {1, 2, 3, 4};
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    const hid_t set = H5Dcreate2(file, "measurements", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(set, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    H5Dclose(set);
    H5Sclose(space);
    H5Fclose(file);
  }
  const std::string bytes = file_bytes(foreign);
  const CommandResult result = run_command(quick_memcpy(foreign));
  EXPECT_EQ(result.exit_code, 2) << result.err;
  ASSERT_EQ(lines_of(result.err).size(), 1u) << result.err;
  EXPECT_NE(result.err.find("an HDF5 file npgpu did not write"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("left untouched"), std::string::npos) << result.err;
  EXPECT_EQ(file_bytes(foreign), bytes);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), {}), 1) << "nothing else written";
}

// A small tmpfs of its own, unmounted whatever happens; skipped where mounting is not allowed.
class SmallDisk {
 public:
  explicit SmallDisk(const fs::path& at) : at_(at) {
    fs::create_directories(at_);
    mounted_ = mount("npgpu-test", at_.c_str(), "tmpfs", 0, "size=4m") == 0;
  }
  ~SmallDisk() {
    if (mounted_) umount2(at_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  // Fills the disk until `left` bytes are free.
  void leave_free(std::uintmax_t left) {
    struct statvfs disk{};
    statvfs(at_.c_str(), &disk);
    const std::uintmax_t free = static_cast<std::uintmax_t>(disk.f_bavail) * disk.f_frsize;
    std::ofstream(at_ / "filler", std::ios::binary) << std::string(free > left ? free - left : 0, 'x');
  }
  void empty_filler() { fs::remove(at_ / "filler"); }

 private:
  fs::path at_;
  bool mounted_ = false;
};

TEST(RecordSafety, FullDiskKeepsTheOldFileAndSaysWhereTheCurvesAre) {
  TempDir dir;
  SmallDisk disk(dir.path() / "disk");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): " << std::strerror(errno);
  const std::string record = (dir.path() / "disk" / "full.h5").string();
  for (int i = 0; i < 3; ++i) ASSERT_EQ(run_command(quick_memcpy(record)).exit_code, 0);
  const std::string old = file_bytes(record);
  // Room for the run's lone-run file and its replacement, not for the record's copy with the run.
  disk.leave_free(old.size() / 3 * 3);
  const CommandResult full = run_command(quick_memcpy(record));
  EXPECT_NE(full.exit_code, 0);
  EXPECT_EQ(file_bytes(record), old) << "the old record changed";
  const std::vector<std::string> kept = writers_files(record);
  ASSERT_EQ(kept.size(), 1u) << "the run's curves are kept beside the record:\n" << full.err;
  EXPECT_NE(full.err.find(kept[0]), std::string::npos) << "the message says where the curves are:\n" << full.err;
  EXPECT_EQ(H5File((fs::path(record).parent_path() / kept[0]).string()).members("/runs/0001/curves").size(), 1u);

  disk.empty_filler();
  const CommandResult next = run_command(quick_memcpy(record));
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_NE(next.out.find("kept in the record a run whose writer died"), std::string::npos) << next.out;
  H5File file(record);
  EXPECT_EQ(file.members("/runs").size(), 5u) << "the earlier three, the full disk's, the next";
  EXPECT_TRUE(writers_files(record).empty());
}

}  // namespace
}  // namespace npgpu::test
