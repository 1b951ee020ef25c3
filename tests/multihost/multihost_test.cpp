// Issue 8's proof on separate hosts. Each test runs inside a virtual cluster that CTest builds with
// tests/multihost/virtual_cluster.sh (VC_DIR names it): hosts in their own network and UTS
// namespaces, each link rate-limited both ways. The ground truth is the cluster's own table
// (VC_DIR/hosts: name, address, Mbit/s): a transfer from host a to host b runs at most at
// min(rate a, rate b). npgpu's records are read back against it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>
#include <tuple>

#include "integration/refusal.hpp"
#include "multihost/virtual_cluster.hpp"
#include "support/command.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {
namespace {

// The limit of a transfer from rank a to rank b: one rank per host, in host order.
double limit(const std::vector<Host>& hosts, int a, int b) {
  return std::min(hosts[static_cast<std::size_t>(a)].bytes_per_second,
                  hosts[static_cast<std::size_t>(b)].incoming_bytes_per_second);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// A large message in long windows: 32 MB between acks, so the ack's round trip and a late
// scheduler on the busy cores cost under 1%; the cache state does not matter behind a rate limit.
// Up to 8 trials: a quiet link's trials agree within 1% and stop at the minimum of 3 (96 trials
// here: 0.981-1.000 of the limit), but a second or two of the machine's own noise once slowed 2 of
// a cell's 3-4 trials to 0.91 of the limit (CI); the disagreement then buys more trials.
const std::vector<std::string> kLarge{"--pattern", "stream", "--window", "16", "--cache", "warm", "--trial-time", "0.001",
                                      "--max-trials", "8"};
constexpr double kLargeBytes = 2 * 1024 * 1024;
// kLarge in windows of 4: 8 MB of 2 MiB messages, a third of a second across a trunk of 200
// Mbit/s shared by two, where the ack's round trip costs under 0.1%; kLarge's 32 MB made the
// two-switch test last three minutes.
const std::vector<std::string> kShortWindows{"--pattern", "stream", "--window", "4", "--cache", "warm", "--trial-time",
                                             "0.001", "--max-trials", "8"};

// npgpu on every host of the cluster, one rank each, from the first host; what Open MPI prints of
// its own left out of what the tests judge (npgpu_lines_of).
CommandResult run_on_cluster(const TempDir& dir, const std::vector<std::string>& options) {
  std::vector<std::string> argv{(cluster_dir() / "mpirun").string(), "-q", "-np", std::to_string(cluster_hosts().size()),
                                NPGPU_BINARY};
  argv.insert(argv.end(), options.begin(), options.end());
  CommandResult result = run_command(argv, dir.path());
  std::string err;
  for (const std::string& line : npgpu_lines_of(result.err)) err += line + "\n";
  result.err = err;
  return result;
}

// The cluster was built with its slow host slow from it only (VC_SLOW_OUTGOING=1).
bool slow_outgoing_only() {
  const char* one_way = std::getenv("VC_SLOW_OUTGOING");
  return one_way != nullptr && std::string(one_way) == "1";
}

// `npgpu report` of a record, its text.
std::string report_of(const std::string& record) {
  const CommandResult report = run_command({NPGPU_BINARY, "report", record});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  return report.out;
}

// The MB/s figure that follows `words` in `text`; NaN where the words are missing.
double megabytes_after(const std::string& text, const std::string& words) {
  const std::size_t at = text.find(words);
  return at == std::string::npos ? std::nan("") : std::stod(text.substr(at + words.size())) * 1e6;
}

// Printed either way, so that every log carries the figures.
void expect_within(double measured, double limit, double bound, const std::string& what) {
  std::cout << "  " << what << ": " << measured / 1e6 << " MB/s = " << measured / limit << " of its limit, "
            << limit / 1e6 << " MB/s\n";
  EXPECT_NEAR(measured / limit, 1.0, bound) << what;
}

// Before any matrix is trusted: one link alone gives the rate its limiter was set to, to within
// TCP/IP and Ethernet headers (under 1% at MTU 9000); the slow host's link gives its own. It also
// proves the tcp module finds a peer on another host by its address on the cluster's network.
TEST(OneLinkAlone, RunsAtTheRateItsLimiterWasSetTo) {
  const std::vector<Host> hosts = cluster_hosts();
  ASSERT_GE(hosts.size(), 2u);
  const int last = static_cast<int>(hosts.size()) - 1;
  TempDir dir;
  for (int peer : {1, last}) {
    std::vector<std::string> options{"--module", "tcp", "--pairs", "0:" + std::to_string(peer), "--lower", "2M", "--upper",
                                     "2M", "-o", dir.file("one.h5")};
    options.insert(options.end(), kLarge.begin(), kLarge.end());
    const CommandResult result = run_on_cluster(dir, options);
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  H5File file(dir.file("one.h5"));
  for (const auto& [run, peer] : {std::pair{"/runs/0001", 1}, std::pair{"/runs/0002", last}}) {
    const std::string at = run;
    expect_within(file.doubles(at + "/curves/rank0/throughput_from_time_median").back(), limit(hosts, 0, peer), 0.03,
                  "0->" + std::to_string(peer));
    EXPECT_EQ(file.text_attribute(at + "/system/placement/rank0", "tcp_peer").rfind(hosts[static_cast<std::size_t>(peer)].address + ":", 0), 0u);
    EXPECT_EQ(file.text_attribute(at + "/system/placement/rank0", "tcp_same_host"),
              "no (peer's address on a network both hosts are on)");
  }
}

struct ModuleBound {
  const char* module;
  double bound;  // the issue's: Open MPI's TCP transport frames its own messages, raw TCP does not
};

class OnFourHosts : public ::testing::TestWithParam<ModuleBound> {};

// The least of `count` raw trials from `first` (NaN past a size's or cell's trials).
double least_trial(const std::vector<double>& trials, std::size_t first, std::size_t count) {
  double least = INFINITY;
  for (std::size_t t = first; t < first + count; ++t)
    if (!std::isnan(trials[t])) least = std::min(least, trials[t]);
  return least;
}

// Each cell's throughput in its fastest trial, from the matrix's raw trials. A rate limiter is a
// ceiling and the busy cores only ever slow a trial, so the fastest trial is the link's rate; the
// headline median once read 0.94 of a healthy link's limit in CI, with most of the cell's trials
// slowed. A wrong byte count or clock would move every trial, the fastest too.
std::vector<double> fastest_trial_throughput(const H5File& file, const std::string& matrix) {
  const std::vector<double> seconds = file.doubles(matrix + "/seconds"), throughput = file.doubles(matrix + "/throughput"),
                            reps = file.doubles(matrix + "/reps"), transfers = file.doubles(matrix + "/transfers_per_rep"),
                            trials = file.doubles(matrix + "/trial_seconds");
  const std::size_t max_trials = trials.size() / seconds.size();
  std::vector<double> fastest(seconds.size(), std::nan(""));
  for (std::size_t cell = 0; cell < seconds.size(); ++cell) {
    const double bytes_per_transfer = throughput[cell] * seconds[cell];
    fastest[cell] = bytes_per_transfer * reps[cell] * transfers[cell] / least_trial(trials, cell * max_trials, max_trials);
  }
  return fastest;
}

// Every ordered pair: exactly the links whose limit is under --flag-below (0.8) x the median limit
// are flagged (with one host at a third of the others' rate: the links that touch it), and every
// other cell's fastest trial is within the bound of its limit. The record names the 4 hosts, one
// class of path.
TEST_P(OnFourHosts, AllPairsFlagExactlyTheSlowLinks) {
  const std::vector<Host> hosts = cluster_hosts();
  const int n = static_cast<int>(hosts.size());
  ASSERT_EQ(n, 4);
  TempDir dir;
  std::vector<std::string> options{"--module", GetParam().module, "--pairs", "all", "--sizes", "2M", "-o", dir.file("all.h5")};
  options.insert(options.end(), kLarge.begin(), kLarge.end());
  const CommandResult result = run_on_cluster(dir, options);
  ASSERT_EQ(result.exit_code, 0) << result.err;

  H5File file(dir.file("all.h5"));
  const std::string m = "/runs/0001/matrix";
  EXPECT_EQ(file.texts(m + "/rank_host"), host_names());
  EXPECT_EQ(file.texts(m + "/classes"), std::vector<std::string>{"two hosts, host buffers"});

  std::vector<double> limits;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) limits.push_back(limit(hosts, a, b));
  const double threshold = file.number_attribute(m, "flag_below") * median(limits);
  std::set<std::pair<int, int>> expected_flags, flags;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && limit(hosts, a, b) < threshold) expected_flags.insert({a, b});
  ASSERT_EQ(expected_flags.size(), slow_outgoing_only() ? 3u : 6u)
      << "3 links touch the slow host each way; VC_SLOW_OUTGOING: those from it only";
  const std::vector<double> from = file.doubles(m + "/flagged/from_rank"), to = file.doubles(m + "/flagged/to_rank");
  for (std::size_t i = 0; i < from.size(); ++i) flags.insert({static_cast<int>(from[i]), static_cast<int>(to[i])});
  EXPECT_EQ(flags, expected_flags) << result.out;

  EXPECT_EQ(file.doubles(m + "/bytes"), std::vector<double>{kLargeBytes});
  const std::vector<double> fastest = fastest_trial_throughput(file, m);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && expected_flags.count({a, b}) == 0)
        expect_within(fastest[static_cast<std::size_t>(a * n + b)], limit(hosts, a, b), GetParam().bound,
                      std::to_string(a) + "->" + std::to_string(b) + ", fastest trial");
}

// What users run: --pairs all at its defaults (an 8 B latency matrix, then 1 MiB of throughput,
// windows and trials chosen by npgpu). The 1 MiB matrix flags exactly the slow host's links, and
// the report sees no split of the hosts: one slow host is not a group. The latency matrix is the
// machine's noise as much as the links': 9 us cells read 13 us to 4 ms while CI's other tests and
// a benchmark kept both cores busy. Its false flags are counted over three launches in
// bench/diagnosis.py (none in 18 at a load of 3-6); here a healthy link flagged at 8 B must at
// least have been measured again before it was. A --pairs halves run beside it (one switch, no
// trunk): the matrix measured no cell between the pairs' hosts alone (its step rank i -> i + N/2
// is the halves run itself), so the report says it cannot tell what a pair gets alone, and which
// run would at what cost; it names no groups and no link between them.
TEST_P(OnFourHosts, AllPairsAtTheDefaultsFlagOnlyTheSlowHostsLinks) {
  const std::vector<Host> hosts = cluster_hosts();
  const int n = static_cast<int>(hosts.size());
  TempDir dir;
  const CommandResult result = run_on_cluster(dir, {"--module", GetParam().module, "--pairs", "all", "-o", dir.file("all.h5")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  H5File file(dir.file("all.h5"));
  const std::string m = "/runs/0001/matrix";
  ASSERT_EQ(file.doubles(m + "/bytes"), (std::vector<double>{8, 1 << 20}));
  std::set<std::tuple<int, int, int>> expected, flags;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && limit(hosts, a, b) < hosts[0].bytes_per_second / 2) expected.insert({1, a, b});
  const std::vector<double> size = file.doubles(m + "/flagged/size_index"), from = file.doubles(m + "/flagged/from_rank"),
                            to = file.doubles(m + "/flagged/to_rank");
  for (std::size_t i = 0; i < from.size(); ++i) {
    const std::tuple<int, int, int> flag{static_cast<int>(size[i]), static_cast<int>(from[i]), static_cast<int>(to[i])};
    if (std::get<0>(flag) == 1) {
      flags.insert(flag);
    } else if (!expected.count({1, std::get<1>(flag), std::get<2>(flag)})) {
      EXPECT_GE(file.doubles(m + "/measured_again").at(0), 1) << "a healthy link flagged at 8 B unchecked\n" << result.out;
    }
  }
  EXPECT_EQ(flags, expected) << result.out;

  std::vector<std::string> halves{"--module", GetParam().module, "--pairs", "halves", "--lower", "1M", "--upper", "1M",
                                  "-o", dir.file("all.h5")};
  halves.insert(halves.end(), kShortWindows.begin(), kShortWindows.end());
  const CommandResult pairs = run_on_cluster(dir, halves);
  ASSERT_EQ(pairs.exit_code, 0) << pairs.err;
  const std::string report = report_of(dir.file("all.h5"));
  EXPECT_EQ(report.find("the hosts split"), std::string::npos) << report;
  EXPECT_NE(report.find("2 pairs together move "), std::string::npos) << report;
  EXPECT_NE(report.find("what each gets alone the all-pairs run cannot tell"), std::string::npos) << report;
  EXPECT_NE(report.find("--pairs halves --concurrency alone measures it (about "), std::string::npos) << report;
  EXPECT_EQ(report.find("of what it gets alone"), std::string::npos) << report;
  EXPECT_EQ(report.find("a link between the groups"), std::string::npos) << report;
}

// N/2 pairs at once, rank i with i + N/2: each pair moves what its limit allows (its fastest
// trial within the bound), the aggregate is their sum and their least, within twice the bound of
// what the limits allow together, and the slowest pair is the one with the slow host.
TEST_P(OnFourHosts, HalvesAggregateIsWhatTheLimitsAllow) {
  const std::vector<Host> hosts = cluster_hosts();
  const int half = static_cast<int>(hosts.size()) / 2;
  TempDir dir;
  std::vector<std::string> options{"--module", GetParam().module, "--pairs", "halves", "--lower", "2M", "--upper", "2M",
                                   "-o", dir.file("halves.h5")};
  options.insert(options.end(), kLarge.begin(), kLarge.end());
  const CommandResult result = run_on_cluster(dir, options);
  ASSERT_EQ(result.exit_code, 0) << result.err;

  // The aggregate is its pairs' headline figures, summed and the least; each pair's fastest trial
  // is the rate its limit allows (as a matrix cell's: a slowed trial says nothing of the link, and
  // a slow pair's median once read 0.963 of its limit in CI). A wrong byte count or clock would
  // move every trial.
  H5File file(dir.file("halves.h5"));
  double sum = 0, slowest = INFINITY, headline_sum = 0, headline_slowest = INFINITY;
  int slowest_rank = -1;
  for (int rank = 0; rank < half; ++rank) {
    const double pair_limit = limit(hosts, rank, rank + half);
    sum += pair_limit;
    if (pair_limit < slowest) std::tie(slowest, slowest_rank) = std::pair{pair_limit, rank};
    const std::string curve = "/runs/0001/curves/rank" + std::to_string(rank);
    const double headline = file.doubles(curve + "/throughput_from_time_median").back();
    headline_sum += headline;
    headline_slowest = std::min(headline_slowest, headline);
    const std::vector<double> trials = file.doubles(curve + "/trial_seconds");  // one size: one row
    const double fastest = least_trial(trials, 0, trials.size());
    const double moved = file.doubles(curve + "/bytes_per_transfer").back() * file.doubles(curve + "/reps").back() *
                         file.doubles(curve + "/transfers_per_rep").back();
    expect_within(moved / fastest, pair_limit, GetParam().bound, "pair " + std::to_string(rank) + "'s fastest trial");
  }
  const std::string a = "/runs/0001/aggregate";
  EXPECT_EQ(file.number_attribute(a, "pairs"), half);
  EXPECT_NEAR(file.doubles(a + "/throughput_sum").back() / headline_sum, 1.0, 1e-9) << "the sum over pairs";
  EXPECT_NEAR(file.doubles(a + "/throughput_slowest").back() / headline_slowest, 1.0, 1e-9) << "the slowest pair";
  expect_within(file.doubles(a + "/throughput_sum").back(), sum, 2 * GetParam().bound, "the sum over pairs");
  EXPECT_EQ(file.doubles(a + "/slowest_rank").back(), slowest_rank);
}

INSTANTIATE_TEST_SUITE_P(Modules, OnFourHosts, ::testing::Values(ModuleBound{"tcp", 0.03}, ModuleBound{"mpi", 0.08}),
                         [](const auto& info) { return std::string(info.param.module); });

// Two switches, half the hosts on each, joined by a trunk at VC_TRUNK_MBIT each way, under what
// the hosts of one switch could send together (2:1 or more), over or under one host's link. From
// the runs the survey makes, a plain --pairs halves run and a --pairs all run in one record, the
// report names the two groups and the trunk's capacity, both within 10%: the matrix's cells
// across, measured at once, and the pairs together against the cells across that crossed alone
// standing in for each pair alone (never the pairs' own cells: the matrix's halves step is as
// crowded as the halves run).
TEST(TwoSwitches, TheReportNamesTheGroupsAndTheTrunk) {
  const char* trunk_mbit = std::getenv("VC_TRUNK_MBIT");
  ASSERT_NE(trunk_mbit, nullptr) << "run in a cluster built with VC_TRUNK_MBIT";
  const double trunk = std::stod(trunk_mbit) * 1e6 / 8;
  const std::vector<Host> hosts = cluster_hosts();
  std::vector<std::string> groups[2];
  for (const Host& host : hosts) groups[host.on_switch - 1].push_back(host.name);
  ASSERT_EQ(groups[0].size(), hosts.size() / 2);
  TempDir dir;
  const std::string record = dir.file("survey.h5");
  for (const std::vector<std::string>& run : {std::vector<std::string>{"--pairs", "halves", "--lower", "2M", "--upper", "2M"},
                                              std::vector<std::string>{"--pairs", "all", "--sizes", "2M"}}) {
    std::vector<std::string> options{"--module", "tcp", "-o", record};
    options.insert(options.end(), run.begin(), run.end());
    options.insert(options.end(), kShortWindows.begin(), kShortWindows.end());
    const CommandResult result = run_on_cluster(dir, options);
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  const std::string report = report_of(record);
  const auto braces = [](const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "{" : ", ") + name;
    return text + "}";
  };
  EXPECT_NE(report.find("the hosts split into " + braces(groups[0]) + " and " + braces(groups[1]) + " at 2 MiB"),
            std::string::npos) << report;
  expect_within(megabytes_after(report, "the cells across, measured at once, moved "), trunk, 0.10,
                "the trunk, from the matrix");
  // What the pairs moved together (as many times the slowest pair's rate as there are pairs)
  // reads the trunk only where it is under one host's link, so that every pair is held to its
  // share throughout. Over it (a tapered trunk), the pairs finish apart and the last ones run
  // alone at a link's rate (their rates summed read 8 to 14% over): there the trunk is read from
  // the crowds above.
  if (trunk < hosts.front().bytes_per_second)
    expect_within(megabytes_after(report, "which caps their sum at "), trunk, 0.10, "the trunk, from the pairs together");
  expect_within(megabytes_after(report, "where the all-pairs cells crossing at once moved "), trunk, 0.10,
                "the trunk, named in the pairs' verdict");
  EXPECT_NE(report.find("pairs share the network between their hosts"), std::string::npos) << report;

  // The heat map shows what the report says: the groups outlined, in MB/s.
  const CommandResult plot = run_command({"/usr/bin/python3", NPGPU_PLOT, record, "--kind", "matrix", "-o",
                                          dir.file("matrix.png"), "--npgpu", NPGPU_BINARY});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_NE(plot.err.find("2 MiB stream: " + std::to_string(hosts.size()) + " ranks, throughput (MB/s), "),
            std::string::npos) << plot.err;
  EXPECT_NE(plot.err.find("host groups outlined: " + braces(groups[0]) + " | " + braces(groups[1])), std::string::npos)
      << plot.err;
  // The cells across the trunk that were flagged are the split's: no link is listed on its own.
  EXPECT_EQ(report.find("flagged link:"), std::string::npos) << report;
}

// cudaIpc maps the peer's GPU memory, which another host cannot: refused in one line, exit 2,
// nothing written. A build without CUDA, or a machine without a GPU, refuses it earlier, for that.
TEST(CudaIpc, AcrossHostsIsRefused) {
  TempDir dir;
  const CommandResult result = run_on_cluster(dir, {"--module", "cudaIpc", "--pairs", "all", "-o", dir.file("ipc.h5")});
  const std::vector<std::string> lines = lines_of(result.err);
  if (result.exit_code == 2 && lines.size() == 1 && lines[0].find("needs the two ranks of each pair on one host") == std::string::npos)
    GTEST_SKIP() << "refused before the hosts are compared: " << lines[0];
  expect_refusal(result, dir, "module cudaIpc needs the two ranks of each pair on one host, and rank 0 runs on");
}

}  // namespace
}  // namespace npgpu::test
