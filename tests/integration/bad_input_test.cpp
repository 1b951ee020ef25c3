// Bad input: one clear line on stderr, exit code 2, and nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "refusal.hpp"

namespace npgpu::test {
namespace {

struct BadInput {
  const char* name;
  int ranks;  // 0: started without mpirun
  std::vector<std::string> args;
  const char* says;
};

void PrintTo(const BadInput& input, std::ostream* out) { *out << input.name; }

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, OneLineExitTwoNothingWritten) {
  const BadInput& input = GetParam();
  TempDir dir;
  std::vector<std::string> argv{NPGPU_BINARY};
  if (input.ranks > 0) {
    argv = mpirun_npgpu(input.ranks);
    argv.insert(argv.begin() + 1, "-q");  // mpirun's own banner about the exit code is not ours
  }
  argv.insert(argv.end(), input.args.begin(), input.args.end());
  expect_refusal(run_command(argv, dir.path()), dir, input.says);
}

const BadInput kCases[] = {
    {"UnknownModule", 0, {"--module", "smoke-signals"}, "unknown module"},
    {"LowerAboveUpper", 0, {"--module", "memcpy", "--lower", "1M", "--upper", "4K"}, "above --upper"},
    {"LowerAboveDefaultUpper", 0, {"--module", "memcpy", "--lower", "1G"}, "give --upper too"},
    {"ZeroSize", 0, {"--module", "memcpy", "--upper", "0"}, "at least 1 byte"},
    {"NegativeSize", 0, {"--module", "memcpy", "--lower=-8"}, "negative"},
    {"NonNumericSize", 0, {"--module", "memcpy", "--upper", "huge"}, "not a number"},
    {"UnknownSuffix", 0, {"--module", "memcpy", "--upper", "4T"}, "unknown unit 'T'"},
    {"TooLargeToAllocate", 0, {"--module", "memcpy", "--upper", "4096G"}, "host memory"},
    {"MpiMessageOverIntRange", 2, {"--module", "mpi", "--upper", "3G"}, "2147483647"},
    {"MpiWithOneRank", 0, {"--module", "mpi"}, "needs at least 2, and this run has 1"},
    {"AllPairsWithOneRank", 0, {"--module", "mpi", "--pairs", "all"}, "needs at least 2, and this run has 1"},
    {"HalvesOfAnOddCount", 3, {"--module", "mpi", "--pairs", "halves"}, "this run has 3 ranks: start an even number"},
    {"PairOutOfRange", 2, {"--module", "mpi", "--pairs", "0:2"}, "rank 2 does not exist in a run of 2 ranks"},
    {"PairFromARankOutOfRange", 2, {"--module", "mpi", "--pairs", "5:0"}, "rank 5 does not exist in a run of 2 ranks"},
    {"PairOfOneRank", 2, {"--module", "tcp", "--pairs", "1:1"}, "a pair needs two different ranks"},
    {"SampleAboveThePartners", 3, {"--module", "mpi", "--pairs", "all", "--sample", "3"}, "choose 1 to 2"},
    {"SampleOfZero", 0, {"--module", "mpi", "--pairs", "all", "--sample", "0"}, "each rank needs at least one partner"},
    {"SizesWithoutAllPairs", 2, {"--module", "tcp", "--sizes", "8,1M"}, "--sizes applies to --pairs all"},
    {"BidirMatrix", 2, {"--module", "mpi", "--pairs", "all", "--pattern", "bidir"}, "measures pingpong"},
    {"FlagBelowOutOfRange", 0, {"--module", "mpi", "--flag-below", "1.5"}, "between 0 and 1"},
    {"PatternTheModuleLacks", 0, {"--module", "memcpy", "--pattern", "bidir"}, "supports stream, pingpong"},
    {"OutputInMissingDirectory", 0, {"--module", "memcpy", "-o", "missing/run.h5"}, "does not exist"},
    {"NoModule", 0, {"--upper", "4K"}, "no module"},
    {"OptionOfAnotherModule", 0, {"--module", "memcpy", "--buffers", "D,D"}, "--buffers does not apply to module memcpy"},
    {"TcpSocketBufferOverIntRange", 2, {"--module", "tcp", "--socket-buffer", "3G"}, "at most 2147483647"},
    {"TcpWithOneRank", 0, {"--module", "tcp"}, "needs at least 2, and this run has 1"},
    {"ClockDriftWithoutFactor", 0, {"--module", "memcpy", "--test-clock-drift", "4K"}, "expected SIZE:FACTOR"},
};

INSTANTIATE_TEST_SUITE_P(Rejected, BadInputTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(BadInput, ExistingFileThatIsNotHdf5IsLeftUntouched) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  std::ofstream(path) << "size,time\n1,2\n";
  const CommandResult result = run_command({NPGPU_BINARY, "--module", "memcpy", "--upper", "1K", "-o", path});
  EXPECT_EQ(result.exit_code, 2);
  ASSERT_EQ(lines_of(result.err).size(), 1u) << result.err;
  EXPECT_NE(result.err.find("not an HDF5 file"), std::string::npos) << result.err;
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "size,time\n1,2\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

}  // namespace
}  // namespace npgpu::test
