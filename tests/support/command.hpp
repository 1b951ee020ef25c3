#pragma once
// Runs npgpu the way a user does (under a real mpirun) and keeps what it printed.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace npgpu::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// A fresh empty directory, removed when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A command started in the background, in a process group of its own, its output going to files
// that can be read as it runs (to see how far it got); the group is SIGKILLed when the object goes
// away.
class BackgroundCommand {
 public:
  // Starts argv in `directory` (the current one when empty).
  explicit BackgroundCommand(const std::vector<std::string>& argv, const std::filesystem::path& directory = {});
  ~BackgroundCommand();
  BackgroundCommand(const BackgroundCommand&) = delete;
  BackgroundCommand& operator=(const BackgroundCommand&) = delete;

  pid_t pid() const { return pid_; }
  void interrupt() const;  // SIGINT to the whole group, as Ctrl-C in a terminal
  std::string out_so_far() const;
  // Waits for the command to end; nothing when it is still running after `within`.
  std::optional<CommandResult> wait_for(std::chrono::duration<double> within);
  CommandResult wait();

 private:
  TempDir capture_;
  pid_t pid_ = -1;
  std::optional<CommandResult> result_;
};

// Runs argv in `directory` (the current one when empty), waiting for it to end.
CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& directory = {});

// Polls `condition` every few milliseconds; whether it held within `within`.
bool poll_until(const std::function<bool()>& condition, std::chrono::duration<double> within);

// The process of MPI rank `rank` started by the mpirun `launcher` (among its descendants, the one
// whose environment has OMPI_COMM_WORLD_RANK=rank); -1 when there is none (yet).
pid_t rank_process(pid_t launcher, int rank);

// npgpu itself with `args`, without a launcher: its subcommands (report, baseline, export).
CommandResult npgpu(std::vector<std::string> args);

// "mpirun -np N [--mca name value ...] npgpu", ready for npgpu's own arguments. Works as root too.
std::vector<std::string> mpirun_npgpu(int ranks, const std::vector<std::string>& mca = {});

// The words of `a`, then those of `b`.
std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b);

// argv run through `env` with these variables ("NAME=VALUE") set for it alone.
std::vector<std::string> with_environment(const std::vector<std::string>& variables, const std::vector<std::string>& argv);

// The variables, each after -x: mpirun sets them for every rank, and not for itself.
std::vector<std::string> exported(const std::vector<std::string>& variables);

// The variables that preload tests/support/file_system_shim.c into a program, with its settings
// ("NPGPU_SHIM_FLOCK_ERRNO=ENOLCK", ...); in a sanitized build its ASan runtime goes first.
std::vector<std::string> file_system_shim(const std::vector<std::string>& settings);

// Fast sweep settings for tests: small sizes, short trials.
std::vector<std::string> quick_sweep(const std::string& upper = "64K");

// The non-empty lines of a text.
std::vector<std::string> lines_of(const std::string& text);

// The non-empty lines of a job's stderr less those Open MPI's runtime prints of its own, races it
// survives, not npgpu's words: libevent's "[warn] Epoll ... Bad file descriptor" when a job ends
// and its event loop is not shut down cleanly (open-mpi/ompi#5520; after a refusal of 4 ranks in
// one clean-clone CI run), and the rsh launcher's "plm:rsh: Warning: setpgid(...) failed" when it
// sets a started agent's process group too late (between virtual hosts).
std::vector<std::string> npgpu_lines_of(const std::string& err);

}  // namespace npgpu::test
