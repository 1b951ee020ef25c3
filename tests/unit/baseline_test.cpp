// Runs against a reference: noise alone flags nothing, a planted loss is found where it was
// planted and nowhere else, and what the short paths share is named.
#include <gtest/gtest.h>

#include <set>

#include "report/baseline.hpp"
#include "report/baseline_report.hpp"
#include "npgpu/errors.hpp"
#include "synthetic_curve.hpp"

namespace npgpu {
namespace {

const auto kPath = test::hockney(20e-6, 1e9);

// A launch on this project's noisy machine: sizes 5% off the curve, trials slowed by 5% on average.
constexpr test::Noise kNoisy{0.05, 0.05, 5};

PathFigures figures(const test::SyntheticCurve& curve, const std::string& name, std::vector<std::string> hosts,
                    double slowdown_from = 0, double slowdown_to = 0, double factor = 1) {
  PathFigures path{name, std::move(hosts), {0, 1}, {}};
  for (std::size_t i = 0; i < curve.bytes.size(); ++i) {
    const bool slowed = curve.bytes[i] >= slowdown_from && curve.bytes[i] <= slowdown_to;
    std::vector<double> rates;
    for (double t : curve.trials[i]) rates.push_back(curve.bytes[i] / t * (slowed ? factor : 1));
    path.sizes.push_back(figure_of_trials(curve.bytes[i], rates));
  }
  return path;
}

TEST(Baseline, TwoLaunchesOfAHealthyPathFlagNothing) {
  for (const test::Noise noise : {test::kQuiet, kNoisy})
    for (unsigned seed = 0; seed < 200; ++seed) {
      const PathFigures reference = figures(test::synthetic_curve(kPath, noise, 2 * seed), "rank0", {"a", "b"});
      const PathFigures measured = figures(test::synthetic_curve(kPath, noise, 2 * seed + 1), "rank0", {"a", "b"});
      EXPECT_TRUE(curve_shortfalls("run", measured, reference).empty()) << "seed " << seed;
    }
}

TEST(Baseline, ADisturbanceOfEightSizesIsNotThePathButNineAre) {
  const PathFigures reference = figures(test::synthetic_curve(kPath, test::kQuiet, 1), "rank0", {"a", "b"});
  const test::SyntheticCurve measured = test::synthetic_curve(kPath, test::kQuiet, 2);
  EXPECT_TRUE(curve_shortfalls("run", figures(measured, "rank0", {"a", "b"}, 4093, 8192, 0.5), reference).empty())
      << "4093 to 8192 B: 8 sizes";
  EXPECT_EQ(curve_shortfalls("run", figures(measured, "rank0", {"a", "b"}, 4093, 8195, 0.5), reference).size(), 9u);
}

TEST(Baseline, APlantedHalfIsFoundAtExactlyItsSizes) {
  for (unsigned seed = 0; seed < 50; ++seed) {
    const test::SyntheticCurve reference_curve = test::synthetic_curve(kPath, kNoisy, 2 * seed);
    const test::SyntheticCurve measured_curve = test::synthetic_curve(kPath, kNoisy, 2 * seed + 1);
    const PathFigures reference = figures(reference_curve, "rank0", {"a", "b"});
    const PathFigures measured = figures(measured_curve, "rank0", {"a", "b"}, 16381, 262147, 0.5);
    std::set<double> planted, found;
    for (double bytes : measured_curve.bytes)
      if (bytes >= 16381 && bytes <= 262147) planted.insert(bytes);
    for (const Shortfall& s : curve_shortfalls("run", measured, reference)) {
      found.insert(s.bytes);
      EXPECT_NEAR(s.ratio, 0.5, 0.2);
      EXPECT_EQ(s.hosts, (std::vector<std::string>{"a", "b"}));
    }
    EXPECT_EQ(found, planted) << "seed " << seed;
  }
}

// An all-pairs matrix of one rank on each host; `slow(from, to)` the factor its cell is slowed by.
std::vector<PathFigures> matrix(const std::vector<std::string>& hosts, unsigned seed,
                                const std::function<double(int, int)>& slow) {
  std::vector<PathFigures> cells;
  const std::vector<double> sizes{8, 65536, 1048576};
  for (int from = 0; from < static_cast<int>(hosts.size()); ++from)
    for (int to = 0; to < static_cast<int>(hosts.size()); ++to) {
      if (from == to) continue;
      const test::SyntheticCurve curve = test::synthetic_curve(kPath, test::kQuiet, seed++ * 100, sizes);
      PathFigures cell{"rank " + std::to_string(from) + " -> rank " + std::to_string(to),
                       {hosts[from], hosts[to]}, {from, to}, {}};
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        std::vector<double> rates;
        for (double t : curve.trials[i]) rates.push_back(sizes[i] / t * slow(from, to));
        cell.sizes.push_back(figure_of_trials(sizes[i], rates));
      }
      cells.push_back(cell);
    }
  return cells;
}

const std::vector<std::string> kFourHosts{"h1", "h2", "h3", "h4"};

TEST(Baseline, OneSlowHostOfAMatrixIsNamed) {
  const auto healthy = [](int, int) { return 1.0; };
  const auto host_h3_slow = [](int from, int to) { return from == 2 || to == 2 ? 0.5 : 1.0; };
  const std::vector<PathFigures> reference = matrix(kFourHosts, 1, healthy);
  const std::vector<PathFigures> measured = matrix(kFourHosts, 2, host_h3_slow);
  const std::vector<Shortfall> shortfalls = cell_shortfalls("run", measured, reference);
  EXPECT_EQ(shortfalls.size(), 6u * 3) << "the 6 cells of host h3 at each of 3 sizes";
  for (const Shortfall& s : shortfalls) EXPECT_TRUE(s.ranks[0] == 2 || s.ranks[1] == 2) << s.path;
  const std::vector<std::string> shared = shared_shortfalls(shortfalls, measured);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].rfind("every link of host h3: at 8 B, 64 KiB and 1 MiB (x0.", 0), 0u) << shared[0];
  EXPECT_TRUE(cell_shortfalls("run", matrix(kFourHosts, 3, healthy), reference).empty());
}

TEST(Baseline, ALoneSlowCellIsNoiseButALinkSlowedBothWaysIsNot) {
  const std::vector<PathFigures> reference = matrix(kFourHosts, 1, [](int, int) { return 1.0; });
  const auto one_way = [](int from, int to) { return from == 1 && to == 0 ? 0.35 : 1.0; };
  EXPECT_TRUE(cell_shortfalls("run", matrix(kFourHosts, 2, one_way), reference).empty());
  const auto both_ways = [](int from, int to) { return (from == 1 && to == 0) || (from == 0 && to == 1) ? 0.35 : 1.0; };
  const std::vector<PathFigures> measured = matrix(kFourHosts, 2, both_ways);
  const std::vector<Shortfall> shortfalls = cell_shortfalls("run", measured, reference);
  EXPECT_EQ(shortfalls.size(), 2u * 3);
  const std::vector<std::string> shared = shared_shortfalls(shortfalls, measured);
  ASSERT_EQ(shared.size(), 2u);
  EXPECT_EQ(shared[0].rfind("rank 0 -> rank 1 (h1 -> h2): at 8 B, 64 KiB and 1 MiB", 0), 0u) << shared[0];
}

TEST(Baseline, EveryCellSlowedIsTheWholeNode) {
  const auto every = [](int, int) { return 0.5; };
  const std::vector<std::string> one_node(4, "node7");
  const std::vector<PathFigures> reference = matrix(one_node, 1, [](int, int) { return 1.0; });
  const std::vector<PathFigures> measured = matrix(one_node, 2, every);
  const std::vector<Shortfall> shortfalls = cell_shortfalls("run", measured, reference);
  EXPECT_EQ(shortfalls.size(), 12u * 3);
  const std::vector<std::string> shared = shared_shortfalls(shortfalls, measured);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].rfind("every link, the whole node node7: at 8 B, 64 KiB and 1 MiB", 0), 0u) << shared[0];

  const std::vector<Shortfall> of_hosts = cell_shortfalls("run", matrix(kFourHosts, 2, every),
                                                          matrix(kFourHosts, 1, [](int, int) { return 1.0; }));
  EXPECT_EQ(shared_shortfalls(of_hosts, matrix(kFourHosts, 2, every))[0].rfind("every link of all 4 hosts: ", 0), 0u);
}

TEST(Baseline, AFleetFigureIsTheMedianOfItsRecords) {
  const SizeFigure figure = figure_of_records(1024, {1e9, 1.1e9, 0.9e9, 0.2e9});
  EXPECT_NEAR(figure.rate, std::sqrt(0.9e9 * 1e9), 1e6);
  EXPECT_EQ(figure.records, 4);
  EXPECT_GT(figure.spread, 0.05);
  EXPECT_LT(figure.spread, 0.3) << "the slow record is one of four: the median and its spread stand";
}

// A run of an mpi pair on hosts a and b, 1 B to 64 KiB, trials of the model.
RunData pair_run(const std::string& file, std::vector<std::string> hosts, double factor = 1) {
  RunData run;
  run.file = file;
  run.group = "/runs/0001";
  run.module = "mpi";
  run.pattern = "pingpong";
  run.npgpu_version = "0.1.0";
  run.cpu_model = "Some CPU";
  run.rank_host = hosts;
  CurveData curve;
  curve.name = "rank0";
  curve.host = hosts[0];
  curve.peer = 1;
  curve.peer_host = hosts[1];
  const test::SyntheticCurve synthetic = test::synthetic_curve(kPath, test::kQuiet, factor == 1 ? 1 : 2,
                                                               test::netpipe_sizes(65536));
  curve.bytes = synthetic.bytes;
  curve.bytes_per_transfer = synthetic.bytes;
  for (std::vector<double> trials : synthetic.trials) {
    for (double& t : trials) t /= factor;
    curve.trial_seconds.push_back(trials);
  }
  run.curves.push_back(curve);
  return run;
}

TEST(Baseline, ARunIsJudgedByTheRunOfItsHostsAndRefusedOtherwise) {
  const Reference reference{"ref.h5", {pair_run("ref.h5", {"a", "b"})}, std::nullopt};
  EXPECT_TRUE(judge_against({pair_run("new.h5", {"a", "b"})}, reference).shortfalls.empty());
  EXPECT_FALSE(judge_against({pair_run("new.h5", {"a", "b"}, 0.5)}, reference).shortfalls.empty());
  EXPECT_THROW(judge_against({pair_run("new.h5", {"c", "d"})}, reference), UsageError);
  RunData tcp = pair_run("new.h5", {"a", "b"});
  tcp.module = "tcp";
  EXPECT_THROW(judge_against({tcp}, reference), UsageError);
  RunData other_method = pair_run("new.h5", {"a", "b"});
  other_method.method_version = 2;
  EXPECT_THROW(judge_against({other_method}, reference), UsageError);
  RunData other_kind = pair_run("new.h5", {"a", "b"});
  other_kind.cpu_model = "Another CPU";
  EXPECT_THROW(judge_against({other_kind}, reference), UsageError);
}

// One launch cannot show how launches differ: a whole curve at x0.63 of another launch is a level
// healthy launches here differed by, and is not told against that launch alone. Half the rate is
// told either way.
TEST(Baseline, AgainstOneLaunchALevelHealthyLaunchesDifferByIsNotTold) {
  const Reference one_launch{"ref.h5", {pair_run("ref.h5", {"a", "b"})}, std::nullopt};
  EXPECT_TRUE(judge_against({pair_run("new.h5", {"a", "b"}, 0.63)}, one_launch).shortfalls.empty());
  EXPECT_FALSE(judge_against({pair_run("new.h5", {"a", "b"}, 0.5)}, one_launch).shortfalls.empty());
}

// Nor can a fleet of a few launches, however well they agree: they may all have landed alike. A
// fleet with kRecordsToShowHowLaunchesDiffer records behind its figures tells x0.63.
TEST(Baseline, AFleetOfFewLaunchesJudgesAsOneLaunchDoes) {
  std::vector<RunData> launches;
  for (int n = 0; n < kRecordsToShowHowLaunchesDiffer; ++n)
    launches.push_back(pair_run("n" + std::to_string(n) + ".h5", {"n" + std::to_string(2 * n), "n" + std::to_string(2 * n + 1)}));
  std::vector<std::string> left_out;
  const Reference few{"few.h5", {}, fold_fleet({launches.begin(), launches.end() - 1}, left_out)};
  const Reference enough{"enough.h5", {}, fold_fleet(launches, left_out)};
  const RunData at_a_level = pair_run("new.h5", {"x", "y"}, 0.63);

  const BaselineReport by_few = judge_against({at_a_level}, few);
  EXPECT_TRUE(by_few.shortfalls.empty());
  EXPECT_EQ(by_few.least_loss, kLeastLossAgainstOneLaunch);
  EXPECT_NE(baseline_text(by_few).find("; by x0.56 at least, since a fleet of fewer than 10 records (fold more) cannot "
                                       "show how launches differ"),
            std::string::npos)
      << baseline_text(by_few);
  EXPECT_FALSE(judge_against({pair_run("new.h5", {"x", "y"}, 0.5)}, few).shortfalls.empty());

  const BaselineReport by_enough = judge_against({at_a_level}, enough);
  EXPECT_FALSE(by_enough.shortfalls.empty());
  EXPECT_EQ(by_enough.least_loss, kLeastLoss);
  EXPECT_EQ(baseline_text(by_enough).find("at least, since"), std::string::npos) << baseline_text(by_enough);
}

// An all-pairs run of one rank on each of 4 hosts (8 B and 1 MiB), host h4's cells slowed by
// `factor`, its trials the model's with the matrix's noise.
RunData matrix_run(const std::string& file, unsigned seed, double factor = 1) {
  RunData run = pair_run(file, {"h1", "h2"});
  run.curves.clear();
  run.pairing = PairingMode::all;
  MatrixData m;
  m.bytes = {8, 1048576};
  m.patterns = {Pattern::pingpong, Pattern::stream};
  m.rank_host = kFourHosts;
  m.classes = {"two hosts, host buffers"};
  for (int from = 0; from < 4; ++from)
    for (int to = 0; to < 4; ++to) m.cell_class.push_back(from == to ? -1 : 0);
  m.trial_seconds.resize(m.bytes.size() * 16);
  for (std::size_t s = 0; s < m.bytes.size(); ++s)
    for (int from = 0; from < 4; ++from)
      for (int to = 0; to < 4; ++to) {
        if (from == to) continue;
        const test::SyntheticCurve curve = test::synthetic_curve(kPath, kNoisy, seed++ * 100, {m.bytes[s]});
        for (double t : curve.trials[0]) m.trial_seconds[s * 16 + from * 4 + to].push_back(from == 3 || to == 3 ? t / factor : t);
      }
  run.rank_host = kFourHosts;
  run.matrix = m;
  return run;
}

// So with a matrix: every link of a host at x0.63 of one other launch is not told (a healthy
// links check here read 8 B cells at x0.63 to x0.70 of its reference launch), at x0.4 it is.
TEST(Baseline, AgainstOneLaunchAMatrixHostAtALevelHealthyLaunchesDifferByIsNotTold) {
  const Reference one_launch{"ref.h5", {matrix_run("ref.h5", 1)}, std::nullopt};
  EXPECT_TRUE(judge_against({matrix_run("new.h5", 2, 0.63)}, one_launch).shortfalls.empty());
  const BaselineReport slow = judge_against({matrix_run("new.h5", 2, 0.4)}, one_launch);
  EXPECT_EQ(slow.shortfalls.size(), 6u * 2) << "host h4's 6 cells at both sizes";
  for (const Shortfall& s : slow.shortfalls) EXPECT_TRUE(s.ranks[0] == 3 || s.ranks[1] == 3) << s.path;
}

// A size the sweep measured slow and measured again at its rate is judged by its trials then: the
// machine slowed it for a moment, not the path.
TEST(Baseline, ASizeMeasuredAgainIsJudgedByItsTrialsThenToo) {
  const Reference reference{"ref.h5", {pair_run("ref.h5", {"a", "b"})}, std::nullopt};
  RunData slowed = pair_run("new.h5", {"a", "b"}, 0.3);
  ASSERT_FALSE(judge_against({slowed}, reference).shortfalls.empty());
  CurveData& curve = slowed.curves.front();
  for (std::size_t i = 0; i < curve.trial_seconds.size(); ++i)
    curve.rechecked.push_back({curve.trial_seconds[i].front() * 0.3, curve.trial_seconds[i].back() * 0.3});
  EXPECT_TRUE(judge_against({slowed}, reference).shortfalls.empty());
}

TEST(Baseline, AFleetJudgesByHardwareNotByName) {
  std::vector<std::string> left_out;
  const FleetReference fleet = fold_fleet({pair_run("n1.h5", {"n1", "n2"}), pair_run("n3.h5", {"n3", "n4"})}, left_out);
  ASSERT_EQ(fleet.paths.size(), 1u);
  EXPECT_EQ(fleet.paths[0].link, "two hosts");
  EXPECT_EQ(fleet.paths[0].records.front(), 2);
  const Reference reference{"fleet.h5", {}, fleet};
  EXPECT_TRUE(judge_against({pair_run("n5.h5", {"n5", "n6"})}, reference).shortfalls.empty());
  const BaselineReport slow = judge_against({pair_run("n5.h5", {"n5", "n6"}, 0.5)}, reference);
  EXPECT_FALSE(slow.shortfalls.empty());
  RunData other_kind = pair_run("n5.h5", {"n5", "n6"});
  other_kind.cpu_model = "Another CPU";
  EXPECT_THROW(judge_against({other_kind}, reference), UsageError);
}

}  // namespace
}  // namespace npgpu
