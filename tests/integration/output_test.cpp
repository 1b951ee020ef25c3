// Where records go: a new default file each run, or appended to a file the user names.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "support/command.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {
namespace {

std::vector<std::string> memcpy_run(std::vector<std::string> extra = {}) {
  std::vector<std::string> argv{NPGPU_BINARY, "--module", "memcpy"};
  const std::vector<std::string> quick = quick_sweep("4K");
  argv.insert(argv.end(), quick.begin(), quick.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Output, WithoutONewFileEachRunNamedInTheSummary) {
  TempDir dir;
  const CommandResult first = run_command(memcpy_run(), dir.path());
  const CommandResult second = run_command(memcpy_run(), dir.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const std::vector<std::string> names = files_in(dir.path());
  ASSERT_EQ(names.size(), 2u) << "the second run must not overwrite the first";
  for (const std::string& name : names) {
    EXPECT_EQ(name.rfind("npgpu-memcpy-", 0), 0u) << name;
    EXPECT_TRUE(first.out.find("record: " + name) != std::string::npos ||
                second.out.find("record: " + name) != std::string::npos) << name;
    H5File file((dir.path() / name).string());
    EXPECT_EQ(file.members("/runs"), std::vector<std::string>{"0001"});
  }
}

TEST(Output, AppendingKeepsTheEarlierRunIntact) {
  TempDir dir;
  const std::string path = dir.file("many.h5");
  ASSERT_EQ(run_command(memcpy_run({"-o", path})).exit_code, 0);
  std::map<std::string, std::vector<unsigned char>> before;
  {
    H5File file(path);
    for (const std::string& dataset : file.datasets_under("/runs/0001")) before[dataset] = file.raw(dataset);
  }
  ASSERT_EQ(run_command(memcpy_run({"-o", path, "--pattern", "pingpong"})).exit_code, 0);
  H5File file(path);
  EXPECT_EQ(file.members("/runs"), (std::vector<std::string>{"0001", "0002"}));
  for (const auto& [dataset, bytes] : before) EXPECT_EQ(file.raw(dataset), bytes) << dataset;
  EXPECT_EQ(file.text_attribute("/runs/0001", "pattern"), "stream");
  EXPECT_EQ(file.text_attribute("/runs/0002", "pattern"), "pingpong");
  EXPECT_NE(file.text_attribute("/runs/0002", "command_line").find("--pattern pingpong"), std::string::npos);
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"many.h5"}) << "no temporary left behind";
}

// After its last size a sweep measures sizes again (around its breaks and its MPI's settings): the
// last size's line says how many and how long, where it said "done" and then went quiet.
TEST(Output, TheLastSizeSaysWhatIsMeasuredAgainAfterIt) {
  TempDir dir;
  const std::string path = dir.file("again.h5");
  const CommandResult r =
      run_command(joined(joined(mpirun_npgpu(2), {"--module", "mpi", "-o", path}), quick_sweep("64K")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<double> again;
  for (double bytes : H5File(path).doubles("/runs/0001/curves/rank0/recheck_bytes")) again.insert(bytes);
  ASSERT_FALSE(again.empty()) << "shared memory's settings have sides below 64 KiB";
  std::string last;
  for (const std::string& line : lines_of(r.out))
    if (line.rfind("[", 0) == 0) last = line;
  const std::string said = " left: " + std::to_string(again.size()) + " sizes measured again";
  EXPECT_NE(last.find(said), std::string::npos) << said << "\nin: " << last;
  EXPECT_EQ(r.out.find(" done\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace npgpu::test
