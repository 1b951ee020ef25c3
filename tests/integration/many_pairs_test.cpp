// Pair modules with more than two ranks (--pairs): one pair of several, N/2 pairs at once, and the
// all-pairs matrix, under a real mpirun, records read back.
#include <gtest/gtest.h>

#include <cmath>

#include "checks.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

CommandResult run_pairs(int ranks, const std::vector<std::string>& options) {
  std::vector<std::string> argv = mpirun_npgpu(ranks);
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--trial-time", "0.002", "--max-trials", "5"});
  return run_command(argv);
}

TEST(ManyPairs, OnePairOfFourRanksLeavesTheOthersIdle) {
  TempDir dir;
  const CommandResult result = run_pairs(4, {"--module", "mpi", "--pairs", "2:1", "--upper", "4K", "-o", dir.file("p.h5")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("pairs:      2:1: 2->1; the first rank of each pair times; ranks 0, 3 idle"), std::string::npos)
      << result.out;
  H5File file(dir.file("p.h5"));
  EXPECT_EQ(file.members("/runs/0001/curves"), std::vector<std::string>{"rank2"});
  expect_sound_curve(file, "/runs/0001/curves/rank2", upto(4096));
  EXPECT_EQ(file.number_attribute("/runs/0001/curves/rank2", "peer"), 1);
  EXPECT_EQ(file.text_attribute("/runs/0001", "pairs"), "2:1");
}

// Every pattern over both transports: the pairs of each run measure at once, and the aggregate is
// the sum of what each pair's curve says, size by size, with the slowest pair named.
TEST(ManyPairs, HalvesMeasureEveryPairAtOnceInEveryPattern) {
  TempDir dir;
  const std::string out = dir.file("halves.h5");
  const std::vector<std::vector<std::string>> runs{{"--module", "mpi", "--pattern", "pingpong"},
                                                   {"--module", "mpi", "--pattern", "stream", "--window", "8"},
                                                   {"--module", "tcp", "--pattern", "bidir", "--window", "8", "--check"}};
  for (std::vector<std::string> run : runs) {
    run.insert(run.end(), {"--pairs", "halves", "--upper", "16K", "-o", out});
    const CommandResult result = run_pairs(4, run);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("all 2 pairs together: peak"), std::string::npos) << result.out;
  }
  H5File file(out);
  for (const char* run : {"/runs/0001", "/runs/0002", "/runs/0003"}) {
    const std::string at = run;
    EXPECT_EQ(file.members(at + "/curves"), (std::vector<std::string>{"rank0", "rank1"})) << run;
    EXPECT_EQ(file.number_attribute(at + "/curves/rank0", "peer"), 2);
    EXPECT_EQ(file.number_attribute(at + "/curves/rank1", "peer"), 3);
    EXPECT_EQ(file.text_attribute(at, "pairs"), "halves");
    const std::vector<double> a = file.doubles(at + "/curves/rank0/throughput_from_time_median");
    const std::vector<double> b = file.doubles(at + "/curves/rank1/throughput_from_time_median");
    const std::vector<double> sum = file.doubles(at + "/aggregate/throughput_sum");
    const std::vector<double> slowest = file.doubles(at + "/aggregate/throughput_slowest");
    const std::vector<double> slowest_rank = file.doubles(at + "/aggregate/slowest_rank");
    ASSERT_EQ(sum.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(sum[i], a[i] + b[i], 1e-9 * sum[i]) << run << " size " << i;
      EXPECT_EQ(slowest[i], std::min(a[i], b[i])) << run;
      EXPECT_EQ(slowest_rank[i], a[i] <= b[i] ? 0 : 1) << run;
    }
  }
  EXPECT_EQ(file.doubles("/runs/0003/curves/rank0/bytes_per_transfer").back(), 2 * 16384) << "bidir: both ways";
}

// An N x N matrix per size, NaN on the diagonal, every other cell measured, and the console's
// closing list of flagged links.
TEST(ManyPairs, AllPairsGiveALatencyAndAThroughputMatrix) {
  TempDir dir;
  const CommandResult result =
      run_pairs(4, {"--module", "tcp", "--pairs", "all", "--sizes", "8,64K", "--window", "8", "--check", "-o", dir.file("all.h5")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("6 steps; shift k's pairs r -> r + k measured in two or three steps"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Flagged links (throughput below 0.8 x the median"), std::string::npos) << result.out;
  H5File file(dir.file("all.h5"));
  const std::string m = "/runs/0001/matrix";
  EXPECT_EQ(file.doubles(m + "/bytes"), (std::vector<double>{8, 65536}));
  EXPECT_EQ(file.texts(m + "/pattern"), (std::vector<std::string>{"pingpong", "stream"}));
  EXPECT_EQ(file.shape(m + "/seconds"), (std::vector<hsize_t>{2, 4, 4}));
  EXPECT_EQ(file.shape(m + "/trial_seconds").size(), 4u);
  const std::vector<double> seconds = file.doubles(m + "/seconds");
  const std::vector<double> throughput = file.doubles(m + "/throughput");
  for (std::size_t size = 0; size < 2; ++size)
    for (std::size_t from = 0; from < 4; ++from)
      for (std::size_t to = 0; to < 4; ++to) {
        const std::size_t at = size * 16 + from * 4 + to;
        if (from == to) {
          EXPECT_TRUE(std::isnan(seconds[at]) && std::isnan(throughput[at])) << "diagonal " << at;
          continue;
        }
        EXPECT_GT(seconds[at], 0) << from << "->" << to;
        EXPECT_NEAR(throughput[at], (size == 0 ? 8 : 65536) / seconds[at], 1e-6 * throughput[at]);
      }
  EXPECT_EQ(file.texts(m + "/classes"), std::vector<std::string>{"one host, host buffers"});
  const std::vector<double> classes = file.doubles(m + "/cell_class");
  for (std::size_t cell = 0; cell < 16; ++cell) EXPECT_EQ(classes[cell], cell % 5 == 0 ? -1 : 0) << cell;
  EXPECT_EQ(file.texts(m + "/rank_host").size(), 4u);
  EXPECT_TRUE(file.exists(m + "/flagged/from_rank"));
  EXPECT_FALSE(file.exists("/runs/0001/curves/rank0")) << "a matrix, not curves";
}

TEST(ManyPairs, SampledMatrixMeasuresKPartnersPerRankWithARecordedSeed) {
  TempDir dir;
  const CommandResult result = run_pairs(
      4, {"--module", "mpi", "--pairs", "all", "--sample", "1", "--seed", "7", "--sizes", "1K", "-o", dir.file("s.h5")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  H5File file(dir.file("s.h5"));
  EXPECT_EQ(file.text_attribute("/runs/0001", "pairs"), "all, sampled 1 of 3 partners (seed 7)");
  EXPECT_EQ(file.number_attribute("/runs/0001/matrix", "seed"), 7);
  const std::vector<double> seconds = file.doubles("/runs/0001/matrix/seconds");
  std::vector<int> measured_per_row(4, 0);
  for (std::size_t cell = 0; cell < 16; ++cell) measured_per_row[cell / 4] += std::isnan(seconds[cell]) ? 0 : 1;
  EXPECT_EQ(measured_per_row, (std::vector<int>{1, 1, 1, 1})) << "one partner each";
  EXPECT_NE(result.out.find("Flagged links (throughput below 0.8 x the median"), std::string::npos) << result.out;
  EXPECT_TRUE(file.exists("/runs/0001/matrix/flagged/from_rank")) << "a sampled matrix is flagged too";
}

}  // namespace
}  // namespace npgpu::test
