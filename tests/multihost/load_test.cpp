// Issue 36's proof between hosts: a tcp stream between the last host of each half of the cluster
// makes the load, mpi victims on every other host measure all pairs alone and under it. Across a
// trunk between two switches (VC_TRUNK_MBIT) the victims that cross it are told first, with their
// factor; on one switch, where the load's links are its own, no link on the way is blamed. Every
// virtual host is a network namespace of this machine: victims and load share its cores, and the
// report must say so where they suffer from that.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "support/command.hpp"
#include "virtual_cluster.hpp"

namespace npgpu::test {
namespace {

// The report's answer (its first "load" entry in --json) for one launch under load. 8 B and
// 64 KiB, not the default 1 MiB: a 1 MiB cell across the trunk beside the load takes seconds a
// trial, and 64 KiB already splits the hosts into their switches.
nlohmann::json load_answer(const TempDir& dir) {
  const int hosts = static_cast<int>(cluster_hosts().size());
  const std::string record = dir.file("under-load.h5");
  const CommandResult run = run_command({(cluster_dir() / "mpirun").string(), "-q", "-np", std::to_string(hosts), NPGPU_BINARY,
                                         "--module", "mpi", "--pairs", "all", "--sizes", "8,64K", "--load", "stream",
                                         "--load-module", "tcp", "--load-ranks",
                                         std::to_string(hosts / 2 - 1) + "," + std::to_string(hosts - 1), "--timeout",
                                         "60", "-o", record},
                                        dir.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const CommandResult report = run_command({NPGPU_BINARY, "report", "--json", record});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  return report.exit_code == 0 ? nlohmann::json::parse(report.out)["load"].at(0) : nlohmann::json::object();
}

bool told(const nlohmann::json& victim) {
  for (const auto& size : victim["sizes"])
    if (size["beyond_noise"].get<bool>()) return true;
  return false;
}

TEST(UnderLoad, VictimsAcrossTheTrunkAreToldFirstAndFarAboveThoseInside) {
  ASSERT_NE(std::getenv("VC_TRUNK_MBIT"), nullptr) << "run in a cluster built with VC_TRUNK_MBIT";
  std::map<std::string, int> switch_of;
  std::string groups[2];
  const std::vector<Host> hosts = cluster_hosts();
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    switch_of[hosts[h].name] = hosts[h].on_switch;
    if (h + 1 == hosts.size() / 2 || h + 1 == hosts.size()) continue;  // the load's hosts
    std::string& group = groups[hosts[h].on_switch - 1];
    group += (group.empty() ? "{" : ", ") + hosts[h].name;
  }
  TempDir dir;
  const nlohmann::json answer = load_answer(dir);
  const std::size_t victims = hosts.size() - 2;
  ASSERT_EQ(answer["victims"].size(), victims * (victims - 1)) << answer.dump(1);
  // By hand, 8 B between the switches beside a bulk copy across the trunk: 9 us alone, 2.5 to 5 ms
  // beside it (x250 to x530), and between two hosts of one switch as fast as alone
  // (bench/congestion.py). In the run, cells inside a switch read up to x2.2, and one was told in
  // 2 launches of 3: the load's kernel work takes the cores of the 6 ranks' one machine. They are
  // held to stay small, and told as sharing the machine, so that the trunk stays the answer.
  for (const auto& victim : answer["victims"]) {
    EXPECT_NE(std::find(victim["shares"].begin(), victim["shares"].end(), "machine"), victim["shares"].end()) << victim;
    const double at_8 = victim["sizes"][0]["impact"].get<double>();
    if (switch_of[victim["hosts"][0]] != switch_of[victim["hosts"][1]]) {
      EXPECT_TRUE(told(victim)) << victim.dump();
      EXPECT_GT(at_8, 50) << victim.dump();
    } else {
      EXPECT_LT(at_8, 3) << victim.dump();
    }
  }
  const std::string line = answer["lines"].at(0);
  EXPECT_EQ(line.rfind("victims across the split " + groups[0] + "} | " + groups[1] + "}: 8 B one-way x", 0), 0u) << line;
  EXPECT_NE(line.find("; victims inside a group: "), std::string::npos) << line;
  EXPECT_NE(line.find(": the load fills the link between the groups"), std::string::npos) << line;
}

// On one switch the load's links are its own: no victim's slowdown is put on the way. The load's
// work in the kernel takes cores from the 6 ranks' one machine: in 1 launch of 6 here and in CI,
// 8 B cells read x1.2 to x2.4, over the x1.25 floor; those are told as sharing the machine.
TEST(UnderLoad, OnOneSwitchNoLinkOnTheWayIsBlamed) {
  ASSERT_EQ(std::getenv("VC_TRUNK_MBIT"), nullptr) << "run in a cluster of one switch";
  TempDir dir;
  const nlohmann::json answer = load_answer(dir);
  ASSERT_EQ(answer["victims"].size(), (cluster_hosts().size() - 2) * (cluster_hosts().size() - 3)) << answer.dump(1);
  for (const auto& victim : answer["victims"]) EXPECT_EQ(victim["shares"], std::vector<std::string>{"machine"}) << victim;
  const std::string line = answer["lines"].at(0);
  if (line.rfind("no impact within the noise (x", 0) != 0) {
    EXPECT_EQ(line.rfind("victims on the load's machine, not its hosts: ", 0), 0u) << line;
    EXPECT_NE(line.find(": the load's machine is what they share ("), std::string::npos) << line;
  }
  const std::string heading = answer["heading"];
  EXPECT_EQ(heading.rfind("mpi pingpong, ", 0), 0u) << heading;
  EXPECT_NE(heading.find(", pairs all, under a tcp stream load of 4 MiB by ranks "), std::string::npos) << heading;
}

}  // namespace
}  // namespace npgpu::test
