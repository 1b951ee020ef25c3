#pragma once
// What the record tests share: a quick run that writes a record, the files writers keep beside it,
// and what the record holds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "record/record_lock.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {

inline std::vector<std::string> quick_memcpy(const std::string& record) {
  return {NPGPU_BINARY, "--module", "memcpy", "--upper", "1K", "--trial-time", "0.001", "--max-trials", "3",
          "--cache", "warm", "-o", record};
}

// The same with the mpi module, for a pair of ranks under mpirun.
inline std::vector<std::string> quick_mpi(const std::string& record) {
  std::vector<std::string> argv = quick_memcpy(record);
  argv[2] = "mpi";
  return argv;
}

// What writers keep beside the record: ".<record>.npgpu-<host>-<pid><suffix>", and the lock file
// ".<record>.npgpu-lock".
inline std::vector<std::string> writers_files(const std::string& record) {
  const std::string prefix = "." + std::filesystem::path(record).filename().string() + ".npgpu-";
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(record).parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  return names;
}

// The lock file once its owner has written its name into it (host, pid, token).
inline bool lock_taken(const std::string& record) {
  std::ifstream in(lock_file_of(record));
  return std::string(std::istreambuf_iterator<char>(in), {}).find("token") != std::string::npos;
}

// A writer is adding its run to its copy of the record: it holds the record's lock.
inline bool adding_a_run(const std::string& record) {
  for (const std::string& name : writers_files(record))
    if (name.ends_with(".tmp")) return true;
  return false;
}

// The record holds exactly these runs: how many of each status.
inline void expect_statuses(const std::string& record, const std::map<std::string, int>& statuses) {
  H5File file(record);
  std::map<std::string, int> found;
  for (const std::string& run : file.members("/runs")) ++found[file.text_attribute("/runs/" + run, "status")];
  EXPECT_EQ(found, statuses);
}

}  // namespace npgpu::test
