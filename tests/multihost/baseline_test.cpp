// A fleet reference across hosts (issue 37): pairs of healthy hosts folded by `npgpu baseline`
// judge a pair of other hosts by their hardware, not their names: a healthy pair passes, the pair
// through the slow host (a third of the rate) falls short at every size its rate decides.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "support/command.hpp"
#include "virtual_cluster.hpp"

namespace npgpu::test {
namespace {

// Streams of 64 KiB to 2 MiB, in windows of 4: the link's rate decides each size's time.
CommandResult pair_run(const TempDir& dir, const std::string& from, const std::string& other, const std::string& record) {
  return run_command({(cluster_dir() / "mpirun-on").string(), from, "-q", "--host", from + "," + other, "-np", "2",
                      NPGPU_BINARY, "--module", "tcp", "--pattern", "stream", "--window", "4", "--cache", "warm",
                      "--lower", "64K", "--upper", "2M", "--trial-time", "0.01", "--max-trials", "5", "-o",
                      dir.file(record)},
                     dir.path());
}

nlohmann::json judged(const TempDir& dir, const std::string& record, int expected_exit) {
  const CommandResult r = run_command({NPGPU_BINARY, "report", "--json", "--baseline", dir.file("fleet.h5"),
                                       dir.file(record)});
  EXPECT_EQ(r.exit_code, expected_exit) << r.err << r.out;
  return r.exit_code == 0 || r.exit_code == 5 ? nlohmann::json::parse(r.out)["baseline"] : nlohmann::json();
}

TEST(FleetOnFourHosts, HealthyPairsJudgeOthersByHardwareAndNameTheSlowHost) {
  const std::vector<Host> hosts = cluster_hosts();
  ASSERT_EQ(hosts.size(), 4u);
  ASSERT_LT(hosts[3].bytes_per_second, hosts[0].bytes_per_second / 2) << "host 4 is the slow one";
  TempDir dir;
  const std::vector<std::pair<int, int>> fleet_pairs{{0, 1}, {1, 2}, {2, 0}};
  std::vector<std::string> fold{NPGPU_BINARY, "baseline", "-o", dir.file("fleet.h5")};
  for (const auto& [a, b] : fleet_pairs) {
    const std::string record = "pair" + std::to_string(a) + std::to_string(b) + ".h5";
    const CommandResult run = pair_run(dir, hosts[a].name, hosts[b].name, record);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    fold.push_back(dir.file(record));
  }
  const CommandResult folded = run_command(fold);
  ASSERT_EQ(folded.exit_code, 0) << folded.err;

  ASSERT_EQ(pair_run(dir, hosts[1].name, hosts[0].name, "healthy.h5").exit_code, 0);
  EXPECT_TRUE(judged(dir, "healthy.h5", 0)["shortfalls"].empty());

  ASSERT_EQ(pair_run(dir, hosts[0].name, hosts[3].name, "slow.h5").exit_code, 0);
  const nlohmann::json slow = judged(dir, "slow.h5", 5);
  EXPECT_GE(slow["shortfalls"].size(), 6u) << slow.dump(2);
  // The limiter's bucket (256 KiB) lets the smallest sizes' windows through faster than its rate.
  double worst = 1;
  for (const auto& shortfall : slow["shortfalls"]) {
    EXPECT_EQ(shortfall["hosts"][1], hosts[3].name);
    EXPECT_LT(shortfall["ratio"].get<double>(), 0.8) << shortfall.dump();
    worst = std::min(worst, shortfall["ratio"].get<double>());
  }
  EXPECT_NEAR(worst, 1.0 / 3, 0.1) << "the slow host's third";
}

}  // namespace
}  // namespace npgpu::test
