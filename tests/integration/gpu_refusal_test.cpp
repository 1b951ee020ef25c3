// The GPU modules' refusals that need no GPU: one clear line, exit code 2, nothing written. Where a
// GPU is present (or the build has no CUDA) the cases that cannot apply are skipped, saying why.
#include <gtest/gtest.h>

#include "refusal.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

// The status column of --list-modules for `module`: "available", "built, cannot run here: ...",
// or "not built ...".
std::string module_status(const std::string& module) {
  const CommandResult listing = run_command({NPGPU_BINARY, "--list-modules"});
  for (const std::string& line : lines_of(listing.out))
    if (line.rfind(module + " ", 0) == 0) {
      for (const char* status : {"available", "built, cannot run here", "not built"})
        if (const auto at = line.find(status); at != std::string::npos) return line.substr(at);
    }
  return "not listed";
}

class GpuModuleWithoutGpu : public ::testing::TestWithParam<const char*> {};

TEST_P(GpuModuleWithoutGpu, RefusesInOneLine) {
  const std::string module = GetParam();
  const std::string status = module_status(module);
  if (status == "available") GTEST_SKIP() << "this machine can run " << module << ": the refusal is for machines without";
  const bool built = status.rfind("not built", 0) != 0;
  expect_refusal({"--module", module}, built ? "module " + module + " cannot run here" : "needs CUDA, and this build has none");
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuModuleWithoutGpu, ::testing::Values("cudaMemcpy", "cuMemcpy", "p2p"));

struct Combination {
  const char* name;
  std::vector<std::string> args;
  const char* says;
};

void PrintTo(const Combination& combination, std::ostream* out) { *out << combination.name; }

class GpuOptionCombination : public ::testing::TestWithParam<Combination> {};

// Checked from the command line alone, before a GPU is looked for.
TEST_P(GpuOptionCombination, IsRefusedBeforeAnyGpuIsTouched) {
  const Combination& combination = GetParam();
  if (module_status(combination.args.at(1)).rfind("not built", 0) == 0) GTEST_SKIP() << "this build has no CUDA";
  expect_refusal(combination.args, combination.says);
}

const Combination kCombinations[] = {
    {"PageableWithD2d", {"--module", "cudaMemcpy", "--direction", "d2d", "--memory", "pageable"},
     "--memory pageable does not apply to --direction d2d"},
    {"PageableAsync", {"--module", "cudaMemcpy", "--memory", "pageable", "--api", "async"},
     "--api async cannot use --memory pageable"},
    {"PageableKernel", {"--module", "cudaMemcpy", "--memory", "pageable", "--copy", "sm"}, "a kernel cannot reach pageable"},
    {"BlockingBidir", {"--module", "cuMemcpy", "--direction", "bidir", "--api", "sync"}, "needs --api async"},
    {"PatternAgainstDirection", {"--module", "cudaMemcpy", "--direction", "d2h", "--pattern", "bidir"},
     "--pattern bidir conflicts with --direction d2h"},
    {"KernelInDriverApiModule", {"--module", "cuMemcpy", "--copy", "sm"}, "--copy sm does not apply to module cuMemcpy"},
    {"MalformedPairs", {"--module", "p2p", "--pairs", "0-1"}, "--pairs '0-1': write SRC:DST"},
    {"PairOfOneGpu", {"--module", "p2p", "--pairs", "1:1"}, "a GPU is not its own peer"},
    {"PairsForCopyModule", {"--module", "cudaMemcpy", "--pairs", "0:1"}, "--pairs does not apply to module cudaMemcpy"},
};

INSTANTIATE_TEST_SUITE_P(Gpu, GpuOptionCombination, ::testing::ValuesIn(kCombinations),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace npgpu::test
