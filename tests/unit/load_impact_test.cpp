// A run under load against its isolated twin: the impact per path and size, beyond the noise only
// where the load slowed it, what the victims share with the load, and the answer in words.
#include <gtest/gtest.h>

#include <cmath>

#include "report/load_impact.hpp"

namespace npgpu {
namespace {

// A path's trials at each size: `seconds` each, spread by up to 4% as a quiet machine spreads them;
// its 99th percentile `p99_factor` times `seconds` (0: not measured).
PathTimes times(const std::string& name, std::vector<std::string> hosts, std::vector<int> ranks,
                const std::vector<double>& bytes, const std::vector<double>& seconds, double p99_factor = 0) {
  PathTimes path{{name, std::move(hosts), std::move(ranks), {}}, {}, {}};
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::vector<double> rates, trials;
    for (int k = 0; k < 5; ++k) {
      trials.push_back(seconds[i] * (1 + 0.01 * k));
      rates.push_back(bytes[i] / trials.back());
    }
    path.figures.sizes.push_back(figure_of_trials(bytes[i], rates));
    path.median_s.push_back(trials[2]);
    path.p99_s.push_back(p99_factor > 0 ? seconds[i] * p99_factor : std::nan(""));
  }
  return path;
}

const std::vector<std::string> kLeft{"h1", "h2", "h3"}, kRight{"h5", "h6", "h7"};
const HostSplit kSplit{{kLeft, kRight}, 1e8, 3e7, 1.2e8, {}};

// Every cell between six hosts, one rank each, at 8 B and 1 MiB; those across the split `slowed`
// times slower, and their tail `tail` times.
void matrix(std::vector<PathTimes>& isolated, std::vector<PathTimes>& loaded, double slowed, double tail) {
  std::vector<std::string> hosts = kLeft;
  hosts.insert(hosts.end(), kRight.begin(), kRight.end());
  for (int from = 0; from < 6; ++from)
    for (int to = 0; to < 6; ++to) {
      if (from == to) continue;
      const std::string name = "rank " + std::to_string(from) + " -> rank " + std::to_string(to);
      const std::vector<std::string> ends{hosts[from], hosts[to]};
      const bool across = (from < 3) != (to < 3);
      const double factor = across ? slowed : 1;
      // Alone too the cells across are 2 to 5 times slower, as crowded on the trunk as their step
      // made them: the matrix's shape, not noise, which must not hide the load.
      const double crowded = across ? 2 + (from + to) % 4 : 1 + 0.1 * ((from + to) % 4);
      isolated.push_back(times(name, ends, {from, to}, {8, 1 << 20}, {10e-6 * crowded, 10e-3 * crowded}, 2));
      // The tail: twice the median alone, `tail` times that under the load.
      loaded.push_back(times(name, ends, {from, to}, {8, 1 << 20}, {10e-6 * crowded * factor, 10e-3 * crowded * factor},
                             2 * (factor > 1 ? tail : 1) / factor));
    }
}

TEST(LoadImpact, CellsAcrossASlowedSplitAreBeyondTheNoiseAndTheOthersAreNot) {
  std::vector<PathTimes> isolated, loaded;
  matrix(isolated, loaded, 6, 14);
  const std::vector<VictimImpact> victims = victim_impacts(isolated, loaded, true);
  ASSERT_EQ(victims.size(), 30u);
  for (const VictimImpact& victim : victims) {
    const bool across = (victim.ranks[0] < 3) != (victim.ranks[1] < 3);
    ASSERT_EQ(victim.sizes.size(), 2u) << victim.path;
    for (const ImpactAtSize& size : victim.sizes) {
      EXPECT_NEAR(size.impact, across ? 6 : 1, 1e-9) << victim.path;
      EXPECT_NEAR(size.impact_p99, across ? 14 : 1, 1e-9) << victim.path;
      EXPECT_EQ(size.beyond_noise, across) << victim.path << " at " << size.bytes;
    }
  }
}

TEST(LoadImpact, ACurveOfOneSizeIsJudgedAtThatSize) {
  const PathTimes isolated = times("rank 0 -> rank 1", {"a", "b"}, {0, 1}, {8}, {10e-6});
  const std::vector<VictimImpact> slowed = victim_impacts({isolated}, {times("rank 0 -> rank 1", {"a", "b"}, {0, 1}, {8}, {30e-6})}, false);
  ASSERT_EQ(slowed.at(0).sizes.size(), 1u);
  EXPECT_TRUE(slowed[0].sizes[0].beyond_noise);
  EXPECT_NEAR(slowed[0].sizes[0].impact, 3, 1e-9);
  EXPECT_TRUE(std::isnan(slowed[0].sizes[0].impact_p99)) << "no tail measured";
  const std::vector<VictimImpact> same = victim_impacts({isolated}, {times("rank 0 -> rank 1", {"a", "b"}, {0, 1}, {8}, {10.3e-6})}, false);
  EXPECT_FALSE(same.at(0).sizes.at(0).beyond_noise);
}

TEST(LoadImpact, WhatAPathSharesWithTheLoad) {
  using Shares = std::vector<std::string>;
  EXPECT_EQ(shares_with_load({"h1", "h5"}, {"h4", "h8"}, kSplit), (Shares{"group_split"})) << "load on hosts in no group";
  EXPECT_EQ(shares_with_load({"h1", "h2"}, {"h4", "h8"}, kSplit), Shares{}) << "inside a group";
  EXPECT_EQ(shares_with_load({"h4", "h1"}, {"h4", "h8"}, kSplit), (Shares{"host"}));
  EXPECT_EQ(shares_with_load({"h2", "h5"}, {"h1", "h3"}, kSplit), Shares{}) << "the load stays inside one group";
  EXPECT_EQ(shares_with_load({"h1", "h5"}, {"h4", "h8"}, std::nullopt), Shares{}) << "no matrix split: hosts only";
}

TEST(LoadImpact, TheAnswerNamesTheVictimsAcrossTheSplit) {
  std::vector<PathTimes> isolated, loaded;
  matrix(isolated, loaded, 6.2, 14);
  std::vector<VictimImpact> victims = victim_impacts(isolated, loaded, true);
  for (VictimImpact& victim : victims) victim.shares = shares_with_load(victim.hosts, {"h4", "h8"}, kSplit);
  const std::vector<std::string> lines = impact_lines(victims, kSplit, "");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "victims across the split {h1, h2, h3} | {h5, h6, h7}: 8 B one-way x6.20 under load (99th percentile x14.0), "
            "1 MiB one-way x6.20 (99th percentile x14.0); victims inside a group: x1.00, within the noise: "
            "the load fills the link between the groups");
}

// Where victims inside a group suffer a little too (the load's kernel work on cores they share),
// the answer leads with the victims hit hardest, whatever order the matrix met them in.
TEST(LoadImpact, TheWorstHitVictimsLead) {
  const auto victim = [](std::vector<std::string> hosts, std::vector<std::string> shares, double impact) {
    return VictimImpact{"rank 0 -> rank 1", {0, 1}, std::move(hosts), std::move(shares),
                        {{8, 1e-5, 1e-5 * impact, impact, std::nan(""), true}}};
  };
  const std::vector<VictimImpact> victims{victim({"h1", "h2"}, {}, 1.6), victim({"h1", "h5"}, {"group_split"}, 200)};
  const std::vector<std::string> lines = impact_lines(victims, kSplit, "");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("victims across the split {h1, h2, h3} | {h5, h6, h7}: 8 B one-way x200 under load; "
                           "victims inside a group: 8 B one-way x1.60 under load", 0), 0u) << lines[0];
}

TEST(LoadImpact, NoImpactIsAnAnswer) {
  std::vector<PathTimes> isolated, loaded;
  matrix(isolated, loaded, 1.03, 1);
  std::vector<VictimImpact> victims = victim_impacts(isolated, loaded, true);
  for (VictimImpact& victim : victims) victim.shares = shares_with_load(victim.hosts, {"h4", "h8"}, kSplit);
  EXPECT_EQ(impact_lines(victims, kSplit, ""), std::vector<std::string>{"no impact within the noise (x1.00 to x1.03)"});
}

// A curve's sweep has dozens of sizes: beyond a few, the answer gives their range, not each.
TEST(LoadImpact, ManySizesAreToldAsARange) {
  VictimImpact victim{"rank 0 -> rank 1", {0, 1}, {"h1"}, {"host"}, {}};
  for (int k = 0; k < 10; ++k)
    victim.sizes.push_back({std::ldexp(1, k), 1e-6, (30 + k) * 1e-6, 30.0 + k, 20.0 + k, true});
  EXPECT_EQ(impact_lines({victim}, std::nullopt, ""),
            std::vector<std::string>{"victims on the load's hosts: 1 B to 512 B one-way x30.0 to x39.0 under load "
                                     "(99th percentile x20.0 to x29.0), at 10 sizes: the load's hosts are what they "
                                     "share (their network link, memory or GPUs)"});
}

RunData under_load_run(const std::string& role, const std::string& group) {
  RunData run;
  run.file = "load.h5";
  run.group = group;
  run.module = "cudaIpc";
  run.pattern = "pingpong";
  run.load = role;
  run.load_facts = LoadData{};
  return run;
}

// Three launches of one command into one record: each loaded run against its own launch's
// isolated run, not against the others' (which would answer each launch three times).
TEST(LoadImpact, EachLoadedRunMeetsTheIsolatedRunOfItsOwnLaunch) {
  std::vector<RunData> runs;
  for (int launch = 0; launch < 3; ++launch) {
    runs.push_back(under_load_run("isolated", "/runs/000" + std::to_string(2 * launch + 1)));
    runs.push_back(under_load_run("loaded", "/runs/000" + std::to_string(2 * launch + 2)));
  }
  using Twins = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(load_twins(runs), (Twins{{0, 1}, {2, 3}, {4, 5}}));
  runs[2].status = RunStatus::incomplete;  // the second launch's isolated run was cut short
  EXPECT_EQ(load_twins(runs), (Twins{{0, 1}, {4, 5}}));
}

// A victims' run of two pairs on one host of 4 GPUs (ranks 0-1 on A and B, 2-3 on C and D), the
// load (ranks 4 and 5) on A and B; in the loaded run the pair on the load's GPUs `slowed` times
// slower at 8 B.
RunData pairs_on_gpus(const std::string& role, const std::string& group, double slowed) {
  RunData run = under_load_run(role, group);
  run.load_facts = LoadData{.pattern = "stream", .module = "cudaIpc", .ranks = {4, 5}, .victims = {0, 1, 2, 3},
                            .hosts = std::vector<std::string>(6, "n1"), .gpus = {"A", "B"}, .bytes = 4 << 20};
  for (const std::string gpu : {"A", "B", "C", "D"}) run.rank_facts.push_back({{"gpu_pci_bus_id", gpu}});
  for (int first : {0, 2}) {
    CurveData curve;
    curve.name = "rank" + std::to_string(first);
    curve.rank = first;
    curve.host = curve.peer_host = "n1";
    curve.peer = first + 1;
    curve.bytes = curve.bytes_per_transfer = {8};
    const double seconds = 8e-6 * (first == 0 ? slowed : 1);
    curve.trial_seconds = {{seconds, seconds * 1.01, seconds * 1.02}};
    run.curves.push_back(curve);
  }
  return run;
}

// Victims on the load's GPUs are told apart from victims beside it on the same host.
TEST(LoadImpact, VictimsOnTheLoadsGpusAreToldApartFromThoseBesideIt) {
  const std::vector<LoadImpact> impacts =
      load_impacts({pairs_on_gpus("isolated", "/runs/0001", 1), pairs_on_gpus("loaded", "/runs/0002", 50)});
  ASSERT_EQ(impacts.size(), 1u);
  ASSERT_EQ(impacts[0].victims.size(), 2u);
  EXPECT_EQ(impacts[0].victims[0].shares, (std::vector<std::string>{"host", "gpu"}));
  EXPECT_EQ(impacts[0].victims[1].shares, std::vector<std::string>{"host"});
  EXPECT_EQ(impacts[0].heading, "cudaIpc pingpong, under a cudaIpc stream load of 4 MiB by ranks 4,5");
  EXPECT_EQ(impacts[0].lines, std::vector<std::string>{
                                  "victims on the load's GPUs: 8 B one-way x50.0 under load; victims on the load's hosts: "
                                  "x1.00, within the noise: the load's GPUs are what they share (their copy engines, "
                                  "memory and links)"});
}

// A p2p load copies between two GPUs from one rank, which lists both: the pair on them shares the
// load's GPUs, the pair on C and D does not.
TEST(LoadImpact, ALoadRankThatCopiesBetweenTwoGpusSharesBoth) {
  std::vector<RunData> runs{pairs_on_gpus("isolated", "/runs/0001", 1), pairs_on_gpus("loaded", "/runs/0002", 50)};
  for (RunData& run : runs)
    run.load_facts = LoadData{.pattern = "stream", .module = "p2p", .ranks = {4}, .victims = {0, 1, 2, 3},
                              .hosts = std::vector<std::string>(5, "n1"), .gpus = {"A B"}};
  const std::vector<LoadImpact> impacts = load_impacts(runs);
  ASSERT_EQ(impacts.size(), 1u);
  ASSERT_EQ(impacts[0].victims.size(), 2u);
  EXPECT_EQ(impacts[0].victims[0].shares, (std::vector<std::string>{"host", "gpu"}));
  EXPECT_EQ(impacts[0].victims[1].shares, std::vector<std::string>{"host"});
}

// Virtual hosts of one machine (network namespaces here) share its cores whatever their names: a
// load between two of them takes cores from victims on the others. The record's machines (boot ids)
// tell such victims apart from victims on hosts of their own, whose suffering lies on the way.
TEST(LoadImpact, VictimsOnTheLoadsMachineUnderOtherHostNamesAreToldSo) {
  const auto impact_on = [](const std::vector<std::string>& machines) {
    std::vector<RunData> runs{pairs_on_gpus("isolated", "/runs/0001", 1), pairs_on_gpus("loaded", "/runs/0002", 1.6)};
    for (RunData& run : runs) {
      run.load_facts->hosts = {"h1", "h2", "h3", "h4", "h5", "h6"};
      run.load_facts->machines = machines;
      run.load_facts->oversubscribed = "6 ranks on 2 cores of one machine";
      for (CurveData& curve : run.curves) {
        curve.host = "h" + std::to_string(curve.rank + 1);
        curve.peer_host = "h" + std::to_string(curve.peer + 1);
      }
    }
    return load_impacts(runs).at(0);
  };
  const LoadImpact one_machine = impact_on(std::vector<std::string>(6, "boot-1"));
  ASSERT_EQ(one_machine.victims.size(), 2u);
  for (const VictimImpact& victim : one_machine.victims) EXPECT_EQ(victim.shares, std::vector<std::string>{"machine"});
  EXPECT_EQ(one_machine.lines, std::vector<std::string>{
                                   "victims on the load's machine, not its hosts: 8 B one-way x1.30 under load: the "
                                   "load's machine is what they share (6 ranks on 2 cores of one machine), not a link "
                                   "on the way"});
  const LoadImpact own_machines = impact_on({"boot-1", "boot-2", "boot-3", "boot-4", "boot-5", "boot-6"});
  for (const VictimImpact& victim : own_machines.victims) EXPECT_EQ(victim.shares, std::vector<std::string>{});
  EXPECT_NE(own_machines.lines.at(0).find("what they share lies on the way"), std::string::npos) << own_machines.lines[0];
}

// Across a filled trunk the victims that cross it suffer most; those inside a group that suffer a
// little share only the load's machine, which does not hide the trunk. Where the victims across
// suffer no more than those (a split the load's noise drew on one switch), the machine answers.
TEST(LoadImpact, VictimsThatShareOnlyTheMachineBoundWhatItExplains) {
  const auto victims = [](double across) {
    const auto victim = [](std::vector<std::string> hosts, std::vector<std::string> shares, double impact) {
      return VictimImpact{"rank 0 -> rank 1", {0, 1}, std::move(hosts), std::move(shares),
                          {{8, 1e-5, 1e-5 * impact, impact, std::nan(""), true}}};
    };
    return std::vector<VictimImpact>{victim({"h1", "h2"}, {"machine"}, 1.31),
                                     victim({"h1", "h5"}, {"group_split", "machine"}, across)};
  };
  EXPECT_EQ(impact_lines(victims(200), kSplit, "8 ranks on 2 cores of one machine"),
            std::vector<std::string>{"victims across the split {h1, h2, h3} | {h5, h6, h7}: 8 B one-way x200 under load; "
                                     "victims inside a group: 8 B one-way x1.31 under load: the load fills the link "
                                     "between the groups; the others suffer no more than sharing the load's machine "
                                     "does (8 ranks on 2 cores of one machine)"});
  EXPECT_EQ(impact_lines(victims(1.26), kSplit, "8 ranks on 2 cores of one machine"),
            std::vector<std::string>{"victims inside a group: 8 B one-way x1.31 under load; victims across the split "
                                     "{h1, h2, h3} | {h5, h6, h7}: 8 B one-way x1.26 under load: the load's machine is "
                                     "what they share (8 ranks on 2 cores of one machine), not a link on the way"});
}

// A load with pauses (TCP's window, the load's own steps between its windows) leaves a few of a
// victim's trials as fast as alone: seen between virtual hosts, a cell across a trunk whose 20
// loaded trials read 8-14 us three times and 0.8-4.8 ms the rest, against 6 us alone. The typical
// trial is what a victim meets, so the judgement reads medians, and that cell is told.
TEST(LoadImpact, AFewTrialsThatMetAPauseOfTheLoadDoNotHideIt) {
  const auto run = [](const std::string& role, const std::string& group, const std::vector<double>& trials) {
    RunData data = pairs_on_gpus(role, group, 1);
    data.curves.resize(1);
    data.curves[0].trial_seconds = {trials};
    return data;
  };
  std::vector<double> alone, loaded{8e-6, 11e-6, 14e-6};
  for (int k = 0; k < 20; ++k) alone.push_back(6e-6 * (1 + 0.02 * (k % 5)));
  for (int k = 0; k < 17; ++k) loaded.push_back(8e-4 + 2.4e-4 * k);
  const std::vector<LoadImpact> impacts = load_impacts({run("isolated", "/runs/0001", alone), run("loaded", "/runs/0002", loaded)});
  ASSERT_EQ(impacts.size(), 1u);
  ASSERT_EQ(impacts[0].victims.at(0).sizes.size(), 1u);
  const ImpactAtSize& at_8 = impacts[0].victims[0].sizes[0];
  EXPECT_GT(at_8.impact, 100);
  EXPECT_TRUE(at_8.beyond_noise) << "the median trial is x" << at_8.impact << " slower";
}

}  // namespace
}  // namespace npgpu
