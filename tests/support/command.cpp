#include "support/command.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace npgpu::test {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& directory) {
  // Open MPI refuses to start as root unless told it may; CI runs as root.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  TempDir capture;
  const std::string out = capture.file("stdout"), err = capture.file("stderr");
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
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  std::filesystem::current_path(previous);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + argv[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out), slurp(err)};
}

std::vector<std::string> mpirun_npgpu(int ranks, const std::vector<std::string>& mca) {
  std::vector<std::string> argv{NPGPU_MPIEXEC, "-np", std::to_string(ranks)};
  // More ranks than cores (3 on CI's 2) must still start.
  if (ranks > 2) argv.push_back("--oversubscribe");
  for (std::size_t i = 0; i + 1 < mca.size(); i += 2) argv.insert(argv.end(), {"--mca", mca[i], mca[i + 1]});
  argv.push_back(NPGPU_BINARY);
  return argv;
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

}  // namespace npgpu::test
