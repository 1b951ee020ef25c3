// The sanitized build's tests run under mpirun as npgpu's do; these prove that a finding there
// fails the run with the sanitizers' exit code and says what it found, and that Open MPI alone
// raises none.
#include <gtest/gtest.h>

#include "support/command.hpp"

namespace npgpu::test {
namespace {

CommandResult run_probe(const std::string& what) {
  std::vector<std::string> argv{NPGPU_MPIEXEC, "-np", "2", NPGPU_SANITIZER_PROBE};
  if (!what.empty()) argv.push_back(what);
  return run_command(argv);
}

void expect_finding(const std::string& what, const std::string& report) {
  const CommandResult result = run_probe(what);
  EXPECT_EQ(result.exit_code, NPGPU_SANITIZER_EXIT_CODE) << result.err;
  EXPECT_NE(result.err.find(report), std::string::npos) << result.err;
}

TEST(Sanitizers, OpenMpiAloneRaisesNoFinding) {
  const CommandResult result = run_probe("");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find("Sanitizer"), std::string::npos) << result.err;
}

TEST(Sanitizers, LeakFailsTheRun) { expect_finding("leak", "ERROR: LeakSanitizer: detected memory leaks"); }

TEST(Sanitizers, HeapOverflowFailsTheRun) { expect_finding("overflow", "ERROR: AddressSanitizer: heap-buffer-overflow"); }

TEST(Sanitizers, UndefinedBehaviourFailsTheRun) { expect_finding("ub", "runtime error: signed integer overflow"); }

}  // namespace
}  // namespace npgpu::test
