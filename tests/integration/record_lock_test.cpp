// Records on file systems where flock fails (Lustre without it: ENOSYS; NFS without a lock
// manager: ENOLCK; EOPNOTSUPP, EINVAL elsewhere) or may bind one host only (NFS): writers take turns
// through a lock file, HDF5's own file locking is skipped where it cannot work, and a dead writer's
// lock is taken over. npgpu meets such a file system through tests/support/file_system_shim.c,
// preloaded into it and so into its HDF5 library.
#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/record_files.hpp"
#include "integration/refusal.hpp"
#include "record/record_lock.hpp"
#include "support/command.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {
namespace {

namespace fs = std::filesystem;
using Seconds = std::chrono::duration<double>;
using Clock = std::chrono::steady_clock;
constexpr auto npos = std::string::npos;

// npgpu alone, with the shim's settings.
std::vector<std::string> shimmed(const std::vector<std::string>& settings, const std::vector<std::string>& argv) {
  return with_environment(file_system_shim(settings), argv);
}

// Two ranks of the mpi module under a real mpirun, each rank with the shim (mpirun without it).
std::vector<std::string> shimmed_pair(const std::vector<std::string>& settings, const std::string& record) {
  return joined(joined({NPGPU_MPIEXEC, "-np", "2"}, exported(file_system_shim(settings))), quick_mpi(record));
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != npos; at = text.find(what, at + 1)) ++count;
  return count;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::map<std::string, int> kErrors{{"ENOSYS", ENOSYS}, {"ENOLCK", ENOLCK}, {"EOPNOTSUPP", EOPNOTSUPP}, {"EINVAL", EINVAL}};

class FlockFails : public ::testing::TestWithParam<std::string> {};

// A run there completes with its record, and so does a two-rank run appending to it; the console
// says once how writers took turns, the run keeps it, the lock file leaves with its writer, and
// npgpu report reads the record there (HDF5 opens it without its own locking, which would fail).
TEST_P(FlockFails, RunsCompleteWithTheirRecord) {
  TempDir dir;
  const std::string record = dir.file("r.h5");
  const std::vector<std::string> settings{"NPGPU_SHIM_FLOCK_ERRNO=" + GetParam()};
  const CommandResult alone = run_command(shimmed(settings, quick_memcpy(record)));
  ASSERT_EQ(alone.exit_code, 0) << alone.out << alone.err;
  const CommandResult pair = run_command(shimmed_pair(settings, record));
  ASSERT_EQ(pair.exit_code, 0) << pair.out << pair.err;
  const std::string method = "writers take turns through the lock file " + lock_file_of(record) +
                             " (flock fails there: " + std::strerror(kErrors.at(GetParam())) + ")";
  for (const CommandResult* run : {&alone, &pair}) {
    EXPECT_EQ(occurrences(run->out, "writers take turns"), 1u) << run->out;
    EXPECT_NE(run->out.find(method), npos) << run->out;
    EXPECT_NE(run->out.find("own file locking off"), npos) << run->out;
  }
  expect_statuses(record, {{"complete", 2}});
  H5File file(record);
  EXPECT_EQ(file.text_attribute("/runs/0002", "module"), "mpi");
  EXPECT_EQ(file.text_attribute("/runs/0002", "record_lock").rfind(method, 0), 0u);
  EXPECT_TRUE(writers_files(record).empty());
  const CommandResult report = run_command(shimmed(settings, {NPGPU_BINARY, "report", record}));
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find(record + ":/runs/0002"), npos) << report.out;
}

INSTANTIATE_TEST_SUITE_P(Errors, FlockFails, ::testing::Values("ENOSYS", "ENOLCK", "EOPNOTSUPP", "EINVAL"),
                         [](const auto& info) { return info.param; });

struct FileSystem {
  const char* name;
  std::vector<std::string> settings;
  const char* method;  // what the console says of it
};

void PrintTo(const FileSystem& system, std::ostream* out) { *out << system.name; }

class OneFolder : public ::testing::TestWithParam<FileSystem> {};

// Writer A holds the record's lock for 3 s (stalled before it renames its copy over the record)
// while B adds its run: had B not waited, one run would be lost (B's copy lacks A's run, or A's
// rename drops B's). Then four writers at once, as RecordSafety's concurrent test.
TEST_P(OneFolder, WritersTakeTurnsAndLoseNothing) {
  TempDir dir;
  const std::string record = dir.file("r.h5");
  const std::vector<std::string> settings = GetParam().settings;
  BackgroundCommand a(shimmed(joined(settings, {"NPGPU_SHIM_STALL_RECORD_COPY=3"}), quick_memcpy(record)));
  ASSERT_TRUE(poll_until([&] { return adding_a_run(record) || a.wait_for(Seconds(0)); }, Seconds(60)));
  const CommandResult b = run_command(shimmed(settings, quick_memcpy(record)));
  const CommandResult first = a.wait();
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  EXPECT_NE(b.out.find(GetParam().method), npos) << b.out;
  expect_statuses(record, {{"complete", 2}});

  std::vector<std::unique_ptr<BackgroundCommand>> runs;
  for (int i = 0; i < 4; ++i) runs.push_back(std::make_unique<BackgroundCommand>(shimmed(settings, quick_memcpy(record))));
  for (auto& run : runs) EXPECT_EQ(run->wait().exit_code, 0);
  expect_statuses(record, {{"complete", 6}});
  EXPECT_TRUE(writers_files(record).empty());
}

INSTANTIATE_TEST_SUITE_P(
    FileSystems, OneFolder,
    ::testing::Values(FileSystem{"local", {}, "writers take turns by flock on its folder"},
                      FileSystem{"flock_fails", {"NPGPU_SHIM_FLOCK_ERRNO=ENOLCK"}, "(flock fails there: "},
                      FileSystem{"nfs", {"NPGPU_SHIM_FILE_SYSTEM=nfs"},
                                 "(the folder is on NFS, where flock may bind one host only); HDF5 "}),
    [](const auto& info) { return std::string(info.param.name); });

const std::vector<std::string> kNoFlock{"NPGPU_SHIM_FLOCK_ERRNO=ENOLCK"};
const std::vector<std::string> kHoldForever{"NPGPU_SHIM_FLOCK_ERRNO=ENOLCK", "NPGPU_SHIM_STALL_RECORD_COPY=forever"};

// HDF5 1.10.8 reads HDF5_USE_FILE_LOCKING over the property list: TRUE where flock fails made every
// open fail, and npgpu took the record for a file it did not write. A run and npgpu report are
// refused in one line that names the variable; where flock works it is obeyed, and the header says so.
TEST(ForcedHdf5Locking, RefusedInOneLineWhereFlockFails) {
  TempDir dir;
  const std::string record = dir.file("r.h5");
  const std::vector<std::string> forced = joined(kNoFlock, {"HDF5_USE_FILE_LOCKING=TRUE"});
  const std::string says = "HDF5_USE_FILE_LOCKING=TRUE has HDF5 lock its files with flock, which fails in '" +
                           dir.path().string() + "' (" + std::strerror(ENOLCK) + "); unset it";
  expect_refusal(run_command(shimmed(forced, quick_memcpy(record))), dir, "-o " + record + ": " + says);

  const CommandResult obeyed = run_command(with_environment({"HDF5_USE_FILE_LOCKING=TRUE"}, quick_memcpy(record)));
  ASSERT_EQ(obeyed.exit_code, 0) << obeyed.out << obeyed.err;
  EXPECT_NE(obeyed.out.find("own file locking as HDF5_USE_FILE_LOCKING=TRUE says"), npos) << obeyed.out;
  const CommandResult report = run_command(shimmed(forced, {NPGPU_BINARY, "report", record}));
  EXPECT_EQ(report.exit_code, 2);
  EXPECT_EQ(lines_of(report.err), std::vector<std::string>{"npgpu report: error: " + record + ": " + says +
                                                           ", and npgpu turns HDF5's own locking off there"});
}

// A writer SIGKILLed while it holds the lock file leaves it behind; the writers after it find its
// owner gone from this host and take it over at once (well within kQuietSeconds), one of them
// says whose it was, and the dead writer's finished sizes are adopted once, however many writers
// start together.
TEST(LockFile, AKilledWritersLockOnThisHostIsTakenOverAtOnce) {
  TempDir dir;
  const std::string record = dir.file("r.h5");
  pid_t killed = -1;
  {
    BackgroundCommand writer(shimmed(kHoldForever, quick_memcpy(record)));
    ASSERT_TRUE(poll_until([&] { return lock_taken(record); }, Seconds(60))) << "the writer never took the lock";
    killed = writer.pid();
  }  // SIGKILLed here
  ASSERT_NE(file_text(lock_file_of(record)).find("pid " + std::to_string(killed)), npos) << "its lock is left behind";
  std::vector<std::unique_ptr<BackgroundCommand>> runs;
  for (int i = 0; i < 3; ++i) runs.push_back(std::make_unique<BackgroundCommand>(shimmed(kNoFlock, quick_memcpy(record))));
  // At once: the lock leaves the dead writer as soon as a writer starts (it takes the lock to adopt
  // the dead run), where another host's would need kQuietSeconds of silence first. The takeover is
  // timed, not the three runs: those took 16.5 s under the sanitizers' slowdown, the takeover little.
  EXPECT_TRUE(poll_until([&] { return file_text(lock_file_of(record)).find("pid " + std::to_string(killed)) == npos; },
                         Seconds(kQuietSeconds - 3)))
      << "the dead writer's lock was still its own " << kQuietSeconds - 3 << " s after the writers started";
  std::string said;
  for (auto& run : runs) {
    const CommandResult result = run->wait();
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    said += result.out;
  }
  EXPECT_EQ(occurrences(said, "took over the record's lock " + lock_file_of(record) + " from process " +
                                  std::to_string(killed) + " on this host (" + host_name() + "), which is gone"),
            1u)
      << said;
  EXPECT_EQ(occurrences(said, "kept in the record a run whose writer died"), 1u) << said;
  expect_statuses(record, {{"complete", 3}, {"failed", 1}});
  EXPECT_TRUE(writers_files(record).empty());
}

// argv run under another host name (a UTS namespace of its own), as on another node.
std::vector<std::string> on_host(const std::string& host, const std::vector<std::string>& argv) {
  return joined({"unshare", "--uts", "sh", "-c", "hostname " + host + " && exec \"$@\"", "sh"}, argv);
}

// A writer on another host holds the lock: this host cannot look for its process, so the next
// writer says whose lock it is and waits. It leaves a lock that is still touched alone (longer than
// kQuietSeconds), and takes it over once its owner, killed, has been silent that long. The dead
// writer's lone-run file is its host's to adopt, and the next run there does.
TEST(LockFile, AnotherHostsLockIsTakenOverOnceItsOwnerFallsSilent) {
  if (run_command(on_host("npgpu-probe", {"true"})).exit_code != 0)
    GTEST_SKIP() << "cannot make a UTS namespace here (needs root and unshare)";
  TempDir dir;
  const std::string record = dir.file("r.h5");
  BackgroundCommand owner(on_host("npgpu-elsewhere", shimmed(kHoldForever, quick_memcpy(record))));
  ASSERT_TRUE(poll_until([&] { return lock_taken(record); }, Seconds(60))) << "the writer never took the lock";
  const std::string whose = "process " + std::to_string(owner.pid()) + " on host npgpu-elsewhere";
  BackgroundCommand waiter(shimmed(kNoFlock, quick_memcpy(record)));
  EXPECT_TRUE(poll_until([&] { return waiter.out_so_far().find("is held by " + whose + "; this host cannot tell") != npos; },
                         Seconds(60)))
      << waiter.out_so_far();
  std::this_thread::sleep_for(Seconds(kQuietSeconds + 5));
  EXPECT_FALSE(waiter.wait_for(Seconds(0))) << "took over a lock its owner still touches";

  kill(-owner.pid(), SIGKILL);
  owner.wait();
  const auto killed = Clock::now();
  const std::optional<CommandResult> taken = waiter.wait_for(Seconds(kQuietSeconds + 60));
  ASSERT_TRUE(taken) << "still waiting for a dead writer's lock";
  const double waited = Seconds(Clock::now() - killed).count();
  EXPECT_EQ(taken->exit_code, 0) << taken->out << taken->err;
  EXPECT_NE(taken->out.find("took over the record's lock " + lock_file_of(record) + " from " + whose +
                            ": no sign of life from it for " + std::to_string(kQuietSeconds) + " s"),
            npos)
      << taken->out;
  EXPECT_GE(waited, kQuietSeconds - 1.5) << "its last touch was at most a second before the kill";
  std::cout << "  the owner's lock was taken over " << waited << " s after it was killed\n";
  const std::vector<std::string> left = writers_files(record);
  ASSERT_FALSE(left.empty());
  for (const std::string& name : left) EXPECT_NE(name.find(".npgpu-npgpu-elsewhere-"), npos) << name;

  const CommandResult there = run_command(on_host("npgpu-elsewhere", shimmed(kNoFlock, quick_memcpy(record))));
  EXPECT_EQ(there.exit_code, 0) << there.out << there.err;
  EXPECT_NE(there.out.find("kept in the record a run whose writer died"), npos) << there.out;
  expect_statuses(record, {{"complete", 2}, {"failed", 1}});
  EXPECT_TRUE(writers_files(record).empty());
}

}  // namespace
}  // namespace npgpu::test
