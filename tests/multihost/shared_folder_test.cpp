// Many nodes, one folder (issue 18). A job whose ranks run on several hosts of the virtual cluster
// writes its record and its lone-run file from rank 0 only, and jobs from different hosts append
// to one record in a folder they share by taking turns. The folder stands in for NFS: the
// cluster's export, which each host's processes see through a bind mount of their own
// (virtual_cluster.sh), under host names of their own. Through flock, through the lock file where
// flock fails or the file system says NFS (tests/support/file_system_shim.c), whose owner on
// another host cannot be looked for: its lock is taken over once it falls silent.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <set>

#include "integration/record_files.hpp"
#include "multihost/virtual_cluster.hpp"
#include "record/record_lock.hpp"
#include "support/command.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {
namespace {

namespace fs = std::filesystem;
using Seconds = std::chrono::duration<double>;
constexpr auto npos = std::string::npos;

// The names of the files made in, or renamed into, a folder while it is watched.
class FolderWatch {
 public:
  explicit FolderWatch(const fs::path& folder) : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    if (fd_ < 0 || inotify_add_watch(fd_, folder.c_str(), IN_CREATE | IN_MOVED_TO) < 0)
      throw std::runtime_error("cannot watch " + folder.string());
  }
  ~FolderWatch() { close(fd_); }

  std::set<std::string> names() const {
    std::set<std::string> found;
    alignas(inotify_event) char events[64 * 1024];
    for (ssize_t got; (got = read(fd_, events, sizeof events)) > 0;)
      for (char* at = events; at < events + got;) {
        const auto* event = reinterpret_cast<const inotify_event*>(at);
        if (event->mask & IN_Q_OVERFLOW) throw std::runtime_error("inotify lost events");
        if (event->len > 0) found.insert(event->name);
        at += sizeof(inotify_event) + event->len;
      }
    return found;
  }

 private:
  int fd_;
};

// A record in a folder of its own in the cluster's export: the path the hosts give npgpu, under
// their mount of it, and the same file's path for this test, which mounts nothing.
struct SharedRecord {
  std::string on_hosts;
  std::string here;
};

SharedRecord shared_record(const std::string& folder) {
  fs::create_directory(cluster_dir() / "export" / folder);
  return {(cluster_dir() / "shared" / folder / "r.h5").string(), (cluster_dir() / "export" / folder / "r.h5").string()};
}

std::string folder_of(const std::string& path) { return fs::path(path).parent_path().string(); }

// Two ranks of the mpi module, one on each of two hosts, started from the first of them.
std::vector<std::string> job_on(const std::string& from, const std::string& other, const std::vector<std::string>& variables,
                                const std::string& record) {
  return joined(joined({(cluster_dir() / "mpirun-on").string(), from, "-q", "--host", from + "," + other, "-np", "2"},
                       exported(variables)),
                quick_mpi(record));
}

// npgpu alone on one host.
std::vector<std::string> alone_on(const std::string& host, const std::vector<std::string>& variables,
                                  const std::string& record) {
  return joined({(cluster_dir() / "on").string(), host}, with_environment(variables, quick_memcpy(record)));
}

// Every rank measures (memcpy), one on each host; what appears beside the record is rank 0's
// alone: files named after its host and its pid, its lone-run file among them.
TEST(SharedFolder, OnlyRankZeroWritesBesideTheRecord) {
  const std::vector<std::string> hosts = host_names();
  const SharedRecord record = shared_record("rank_zero");
  const FolderWatch watch(folder_of(record.here));
  const CommandResult result = run_command(
      joined({(cluster_dir() / "mpirun").string(), "-q", "-np", std::to_string(hosts.size())}, quick_memcpy(record.on_hosts)),
      folder_of(record.here));
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(fs::is_empty(cluster_dir() / "shared")) << "the hosts wrote through their mounts of the export";

  const std::string rank_zeros = ".r.h5.npgpu-" + hosts[0] + "-";
  std::set<std::string> writers;
  bool lone_run = false;
  for (const std::string& name : watch.names()) {
    if (name == "r.h5") continue;
    ASSERT_EQ(name.rfind(rank_zeros, 0), 0u) << name << " is not rank 0's, on " << hosts[0];
    writers.insert(name.substr(rank_zeros.size(), name.find('.', rank_zeros.size()) - rank_zeros.size()));
    lone_run = lone_run || name.ends_with(".run");
  }
  EXPECT_EQ(writers.size(), 1u) << "one process wrote them";
  EXPECT_TRUE(lone_run) << "rank 0 kept its lone-run file";
  H5File file(record.here);
  EXPECT_EQ(file.texts("/runs/0001/system/rank_host"), hosts);
  expect_statuses(record.here, {{"complete", 1}});
  EXPECT_TRUE(writers_files(record.here).empty());
}

struct Method {
  const char* name;
  std::vector<std::string> settings;  // the shim's
  bool lock_file;                     // the lock file, not flock
  const char* method;                 // what the console says of it
};

void PrintTo(const Method& method, std::ostream* out) { *out << method.name; }

class JobsOnTwoPairsOfHosts : public ::testing::TestWithParam<Method> {};

// Job A (hosts 1 and 2) holds the record's lock for 10 s, stalled before it renames its copy over
// the record, while job B (hosts 3 and 4, started from host 3) adds its run: both runs land only
// if B waited for a lock taken on another host. With the lock file, B names the host it waits for.
// (With 3 s, B's own run outlasted the stall under a load of 5-8 and never met the lock.)
TEST_P(JobsOnTwoPairsOfHosts, TakeTurnsAtOneRecord) {
  const std::vector<std::string> hosts = host_names();
  ASSERT_EQ(hosts.size(), 4u);
  const SharedRecord record = shared_record(GetParam().name);
  const std::vector<std::string> shim = file_system_shim(GetParam().settings);
  BackgroundCommand a(job_on(hosts[0], hosts[1], joined(shim, {"NPGPU_SHIM_STALL_RECORD_COPY=10"}), record.on_hosts),
                      folder_of(record.here));
  ASSERT_TRUE(poll_until([&] { return adding_a_run(record.here) || a.wait_for(Seconds(0)); }, Seconds(120)));
  const CommandResult b = run_command(job_on(hosts[2], hosts[3], shim, record.on_hosts), folder_of(record.here));
  const CommandResult first = a.wait();
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;

  H5File file(record.here);
  EXPECT_EQ(file.texts("/runs/0001/system/rank_host"), (std::vector<std::string>{hosts[0], hosts[1]}));
  EXPECT_EQ(file.texts("/runs/0002/system/rank_host"), (std::vector<std::string>{hosts[2], hosts[3]}));
  expect_statuses(record.here, {{"complete", 2}});
  EXPECT_TRUE(writers_files(record.here).empty());
  EXPECT_NE(b.out.find(GetParam().method), npos) << b.out;
  if (GetParam().lock_file) {
    EXPECT_NE(b.out.find(" on host " + hosts[0] + "; this host cannot tell whether that process lives"), npos) << b.out;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Methods, JobsOnTwoPairsOfHosts,
    ::testing::Values(Method{"flock", {}, false, "writers take turns by flock on its folder"},
                      Method{"lock_file", {"NPGPU_SHIM_FLOCK_ERRNO=ENOLCK"}, true, "(flock fails there: "},
                      Method{"nfs", {"NPGPU_SHIM_FILE_SYSTEM=nfs"}, true,
                             "(the folder is on NFS, where flock may bind one host only); HDF5 "}),
    [](const auto& info) { return std::string(info.param.name); });

// A writer on host 1 is killed while it holds the lock file. The writer on host 2 cannot look for a
// process of host 1: it says whose lock it is, takes it over once it has been silent for
// kQuietSeconds, and completes; the dead writer's lone-run file waits for a run on host 1, which
// adopts it.
TEST(SharedFolder, AWriterKilledOnAnotherHostIsTakenOverOnceSilent) {
  const std::vector<std::string> hosts = host_names();
  const SharedRecord record = shared_record("killed");
  const std::vector<std::string> no_flock = file_system_shim({"NPGPU_SHIM_FLOCK_ERRNO=ENOLCK"});
  pid_t killed = -1;
  {
    BackgroundCommand owner(
        alone_on(hosts[0], joined(no_flock, {"NPGPU_SHIM_STALL_RECORD_COPY=forever"}), record.on_hosts));
    ASSERT_TRUE(poll_until([&] { return lock_taken(record.here); }, Seconds(120))) << "the writer never took the lock";
    killed = owner.pid();
  }  // SIGKILLed here
  const CommandResult next = run_command(alone_on(hosts[1], no_flock, record.on_hosts));
  ASSERT_EQ(next.exit_code, 0) << next.out << next.err;
  const std::string whose = "process " + std::to_string(killed) + " on host " + hosts[0];
  EXPECT_NE(next.out.find("is held by " + whose + "; this host cannot tell whether that process lives"), npos) << next.out;
  EXPECT_NE(next.out.find("took over the record's lock " + lock_file_of(record.on_hosts) + " from " + whose +
                          ": no sign of life from it for " + std::to_string(kQuietSeconds) + " s"),
            npos)
      << next.out;
  EXPECT_FALSE(writers_files(record.here).empty()) << "host 1's lone-run file is host 1's to adopt";

  const CommandResult there = run_command(alone_on(hosts[0], no_flock, record.on_hosts));
  ASSERT_EQ(there.exit_code, 0) << there.out << there.err;
  EXPECT_NE(there.out.find("kept in the record a run whose writer died"), npos) << there.out;
  expect_statuses(record.here, {{"complete", 2}, {"failed", 1}});
  EXPECT_TRUE(writers_files(record.here).empty());
}

}  // namespace
}  // namespace npgpu::test
