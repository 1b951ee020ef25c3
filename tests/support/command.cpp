#include "support/command.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace npgpu::test {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The parent of a process, from /proc/PID/stat ("pid (name) state ppid ..."); 0 when it is gone.
pid_t parent_of(pid_t pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) return 0;
  std::istringstream rest(stat.substr(name_end + 1));
  std::string state;
  pid_t parent = 0;
  rest >> state >> parent;
  return parent;
}

bool descends_from(pid_t pid, pid_t ancestor) {
  for (pid_t up = parent_of(pid); up > 1; up = parent_of(up))
    if (up == ancestor) return true;
  return false;
}

}  // namespace

BackgroundCommand::BackgroundCommand(const std::vector<std::string>& argv, const std::filesystem::path& directory) {
  // Open MPI refuses to start as root unless told it may; CI runs as root.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  const std::string out = capture_.file("stdout"), err = capture_.file("stderr");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::filesystem::path previous = std::filesystem::current_path();
  if (!directory.empty()) std::filesystem::current_path(directory);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  // A process group of its own, as a shell's job: a Ctrl-C reaches all of it, and so does the
  // final SIGKILL (a stopped rank included).
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  const int spawned = posix_spawnp(&pid_, args[0], &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  std::filesystem::current_path(previous);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + argv[0]);
}

BackgroundCommand::~BackgroundCommand() {
  kill(-pid_, SIGKILL);
  if (!result_) waitpid(pid_, nullptr, 0);
}

void BackgroundCommand::interrupt() const { kill(-pid_, SIGINT); }

std::string BackgroundCommand::out_so_far() const { return slurp(capture_.path() / "stdout"); }

std::optional<CommandResult> BackgroundCommand::wait_for(std::chrono::duration<double> within) {
  poll_until([&] {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
    result_ = CommandResult{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                            slurp(capture_.path() / "stdout"), slurp(capture_.path() / "stderr")};
    return true;
  }, within);
  return result_;
}

CommandResult BackgroundCommand::wait() {
  while (!wait_for(std::chrono::hours(1))) {
  }
  return *result_;
}

CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& directory) {
  return BackgroundCommand(argv, directory).wait();
}

bool poll_until(const std::function<bool()>& condition, std::chrono::duration<double> within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

pid_t rank_process(pid_t launcher, int rank) {
  const std::string wanted = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (!descends_from(pid, launcher)) continue;
    std::istringstream environment(slurp(entry.path() / "environ"));
    for (std::string variable; std::getline(environment, variable, '\0');)
      if (variable == wanted) return pid;
  }
  return -1;
}

CommandResult npgpu(std::vector<std::string> args) {
  args.insert(args.begin(), NPGPU_BINARY);
  return run_command(args);
}

std::vector<std::string> mpirun_npgpu(int ranks, const std::vector<std::string>& mca) {
  std::vector<std::string> argv{NPGPU_MPIEXEC, "-np", std::to_string(ranks)};
  // More ranks than cores (3 on CI's 2) must still start.
  if (ranks > 2) argv.push_back("--oversubscribe");
  for (std::size_t i = 0; i + 1 < mca.size(); i += 2) argv.insert(argv.end(), {"--mca", mca[i], mca[i + 1]});
  argv.push_back(NPGPU_BINARY);
  return argv;
}

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::string> with_environment(const std::vector<std::string>& variables, const std::vector<std::string>& argv) {
  return joined(joined({"env"}, variables), argv);
}

std::vector<std::string> exported(const std::vector<std::string>& variables) {
  std::vector<std::string> words;
  for (const std::string& variable : variables) words.insert(words.end(), {"-x", variable});
  return words;
}

std::vector<std::string> file_system_shim(const std::vector<std::string>& settings) {
  const std::string first = NPGPU_PRELOAD_FIRST;
  std::vector<std::string> variables{"LD_PRELOAD=" + (first.empty() ? "" : first + " ") + NPGPU_FILE_SYSTEM_SHIM};
  variables.insert(variables.end(), settings.begin(), settings.end());
  return variables;
}

std::vector<std::string> quick_sweep(const std::string& upper) {
  return {"--upper", upper, "--trial-time", "0.002", "--max-trials", "5"};
}

TempDir::TempDir() {
  std::random_device random;
  path_ = std::filesystem::temp_directory_path() / ("npgpu-test-" + std::to_string(random()) + std::to_string(getpid()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::vector<std::string> npgpu_lines_of(const std::string& err) {
  std::vector<std::string> lines;
  for (std::string& line : lines_of(err))
    if (line.rfind("[warn] Epoll ", 0) != 0 && line.find("plm:rsh: Warning: setpgid(") == std::string::npos)
      lines.push_back(std::move(line));
  return lines;
}

}  // namespace npgpu::test
