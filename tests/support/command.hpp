#pragma once
// Runs npgpu the way a user does (under a real mpirun) and keeps what it printed.
#include <filesystem>
#include <string>
#include <vector>

namespace npgpu::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv in `directory` (the current one when empty), waiting for it to end.
CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& directory = {});

// "mpirun -np N [--mca name value ...] npgpu", ready for npgpu's own arguments. Works as root too.
std::vector<std::string> mpirun_npgpu(int ranks, const std::vector<std::string>& mca = {});

// Fast sweep settings for tests: small sizes, short trials.
std::vector<std::string> quick_sweep(const std::string& upper = "64K");

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

// The non-empty lines of a text.
std::vector<std::string> lines_of(const std::string& text);

}  // namespace npgpu::test
