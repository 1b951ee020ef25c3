#pragma once
// Bad input: one clear line on stderr, exit code 2, nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/command.hpp"

namespace npgpu::test {

// A run in the empty directory `dir` was refused: one line on stderr containing `says`, exit
// code 2, and nothing written.
inline void expect_refusal(const CommandResult& result, const TempDir& dir, const std::string& says) {
  EXPECT_EQ(result.exit_code, 2) << result.err;
  const std::vector<std::string> lines = npgpu_lines_of(result.err);
  ASSERT_EQ(lines.size(), 1u) << result.err;
  EXPECT_EQ(lines[0].rfind("npgpu: error: ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(says), std::string::npos) << lines[0];
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "bad input must write nothing";
}

// Runs npgpu alone with `args` in an empty directory and expects the refusal containing `says`.
inline void expect_refusal(const std::vector<std::string>& args, const std::string& says) {
  TempDir dir;
  std::vector<std::string> argv{NPGPU_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  expect_refusal(run_command(argv, dir.path()), dir, says);
}

// The status column of --list-modules for a module: "available", "not built (...)", ...
inline std::string module_status(const std::string& name) {
  const CommandResult listing = run_command({NPGPU_BINARY, "--list-modules"});
  for (const std::string& line : lines_of(listing.out))
    if (line.rfind(name + " ", 0) == 0) return line.substr(line.find("  ", 62) + 1);
  ADD_FAILURE() << name << " is not listed: " << listing.out;
  return {};
}

}  // namespace npgpu::test
