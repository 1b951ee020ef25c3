// Verdicts of `npgpu report` from runs built in memory: each kind, with the figures it names.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include "npgpu/catalog.hpp"
#include "record/export.hpp"
#include "npgpu/pairing.hpp"
#include "npgpu/sizes.hpp"
#include "report/report.hpp"
#include "synthetic_curve.hpp"

namespace npgpu {
namespace {

RunData run_of(const std::string& file, const std::string& group, const std::string& module, const std::string& pattern,
               RunStatus status = RunStatus::complete, const std::string& reason = "") {
  RunData run;
  run.file = file;
  run.group = group;
  run.module = module;
  run.pattern = pattern;
  run.headline = "median";
  run.status = status;
  run.status_reason = reason;
  return run;
}

// A curve of t(n) = alpha + n / beta over 1 B to 64 MiB in powers of four.
CurveData hockney_curve(const std::string& name, double alpha, double beta, LinkPeak peak = {}) {
  CurveData curve;
  curve.name = name;
  curve.host = "alpha";
  for (double n = 1; n <= 64.0 * 1024 * 1024; n *= 4) {
    curve.bytes.push_back(n);
    curve.bytes_per_transfer.push_back(n);
    curve.seconds.push_back(alpha + n / beta);
  }
  curve.link_peak = peak;
  return curve;
}

RunData copy_run(const std::string& group, const std::string& concurrency, const std::string& memory, double beta,
                 int gpus) {
  RunData run = run_of("node.h5", group, "cudaMemcpy", "stream");
  run.concurrency = concurrency;
  run.facts = {{"direction", "h2d"}, {"host_memory", memory + " (details)"}, {"gpu", "0"}};
  for (int g = 0; g < gpus; ++g) {
    run.curves.push_back(hockney_curve("rank" + std::to_string(g), 5e-6, beta, {63.015e9, "PCIe Gen5 x16"}));
    run.curves.back().rank = g;
  }
  return run;
}

const Finding* find_kind(const Report& report, const std::string& kind) {
  for (const Finding& f : report.findings)
    if (f.kind == kind) return &f;
  return nullptr;
}

TEST(Report, CurveFiguresAndTheShareOfThePeak) {
  RunData run = copy_run("/runs/0001", "together", "pinned", 50e9, 1);
  const Report report = make_report({run}, std::nullopt, path_words);
  const CurveReport& c = report.runs.at(0).curves.at(0);
  EXPECT_DOUBLE_EQ(c.summary.latency_seconds, 5e-6 + 1 / 50e9);
  EXPECT_NEAR(c.hockney.whole.alpha_s, 5e-6, 1e-10);
  EXPECT_NEAR(c.hockney.whole.beta_B_per_s, 50e9, 1e4);
  const double peak = 64.0 * 1024 * 1024 / (5e-6 + 64.0 * 1024 * 1024 / 50e9);
  EXPECT_NEAR(c.peak_fraction, peak / 63.015e9, 1e-9);
  EXPECT_NE(c.verdict.find("very good"), std::string::npos) << c.verdict;  // 79%
}

// Where each rank copied: its GPU, that GPU's bus id, NUMA node and the PCIe bridges above it.
void place(RunData& run, const std::vector<std::array<std::string, 4>>& places) {
  for (const auto& [gpu, bus, node, upstream] : places)
    run.rank_facts.push_back(
        {{"gpu", gpu}, {"gpu_pci_bus_id", bus}, {"gpu_numa_node", node}, {"gpu_pcie_upstream", upstream}});
}

const Finding& concurrent_finding(const std::vector<std::array<std::string, 4>>& places, double each_together) {
  static Report report;
  RunData alone = copy_run("/runs/0001", "alone", "pinned", 55.2e9 * 1.0001, static_cast<int>(places.size()));
  RunData together = copy_run("/runs/0002", "together", "pinned", each_together * 1.0001, static_cast<int>(places.size()));
  place(alone, places);
  place(together, places);
  report = make_report({alone, together}, std::nullopt, path_words);
  const Finding* f = find_kind(report, "concurrent_vs_alone");
  EXPECT_NE(f, nullptr);
  return *f;
}

TEST(Report, ConcurrentAgainstAloneSaysWhenNothingIsSharedByAll) {
  // The issue's 4 x H200 node: 55.2 GB/s each alone, 40.5 GB/s each together; each GPU behind a
  // root port of its own, two on each NUMA node: nothing in the record is common to all four.
  const Finding& f = concurrent_finding({{"0", "0000:18:00.0", "0", "pci0000:15 > 0000:15:01.0"},
                                         {"1", "0000:2a:00.0", "0", "pci0000:27 > 0000:27:01.0"},
                                         {"2", "0000:9a:00.0", "1", "pci0000:97 > 0000:97:01.0"},
                                         {"3", "0000:ab:00.0", "1", "pci0000:a8 > 0000:a8:01.0"}},
                                        40.5e9);
  EXPECT_NE(f.text.find("together each GPU gets 73% of what it gets alone: something the 4 GPUs share caps their "
                        "sum at 16"), std::string::npos) << f.text;
  EXPECT_NE(f.text.find("the record does not say what"), std::string::npos) << f.text;
  EXPECT_EQ(f.runs, (std::vector<std::string>{"node.h5:/runs/0002", "node.h5:/runs/0001"}));
}

TEST(Report, ConcurrentAgainstAloneNamesWhatAllThePathsShare) {
  // Two ranks on one GPU (--device 0): its one link is the cap, not the host side.
  const Finding& one_gpu = concurrent_finding({{"0", "0000:18:00.0", "0", "pci0000:15 > 0000:15:01.0"},
                                               {"0", "0000:18:00.0", "0", "pci0000:15 > 0000:15:01.0"}},
                                              30.4e9);
  EXPECT_NE(one_gpu.text.find("together each rank gets 55% of what it gets alone: the 2 ranks share GPU 0 (0000:18:00.0) and its one PCIe link"), std::string::npos)
      << one_gpu.text;
  // Two GPUs behind one switch.
  const Finding& switched = concurrent_finding({{"0", "0000:18:00.0", "0", "pci0000:15 > 0000:15:01.0 > 0000:16:00.0"},
                                                {"1", "0000:19:00.0", "0", "pci0000:15 > 0000:15:01.0 > 0000:16:00.0"}},
                                               30.4e9);
  EXPECT_NE(switched.text.find("share the PCIe bridge 0000:16:00.0 above all of them"), std::string::npos) << switched.text;
  // Two GPUs on root ports of their own, on one NUMA node.
  const Finding& numa = concurrent_finding({{"0", "0000:18:00.0", "0", "pci0000:15 > 0000:15:01.0"},
                                            {"1", "0000:2a:00.0", "0", "pci0000:27 > 0000:27:01.0"}},
                                           30.4e9);
  EXPECT_NE(numa.text.find("share NUMA node 0"), std::string::npos) << numa.text;
  // 4 x H100 in a virtual machine: each GPU on its one root bus, one NUMA node. A root complex has
  // no link above it, so the cap is on the host's side, not a shared PCIe link.
  const Finding& one_root = concurrent_finding({{"0", "0000:00:06.0", "0", "pci0000:00"},
                                                {"1", "0000:00:07.0", "0", "pci0000:00"},
                                                {"2", "0000:00:08.0", "0", "pci0000:00"},
                                                {"3", "0000:00:09.0", "0", "pci0000:00"}},
                                               41.3e9);
  EXPECT_NE(one_root.text.find("the 4 GPUs share NUMA node 0 (the host memory and PCIe root complex pci0000:00 their GPUs "
                               "hang off; no PCIe link is common to them)"),
            std::string::npos)
      << one_root.text;
  EXPECT_EQ(one_root.text.find("upstream link"), std::string::npos) << one_root.text;
  // The same root ports with no NUMA node known: the root complex, still no link.
  const Finding& root_only = concurrent_finding({{"0", "0000:18:00.0", "-1", "pci0000:15 > 0000:15:01.0"},
                                                 {"1", "0000:19:00.0", "-1", "pci0000:15 > 0000:15:02.0"}},
                                                30.4e9);
  EXPECT_NE(root_only.text.find("share the PCIe root complex pci0000:15 (the host's side; no PCIe link is common to them)"),
            std::string::npos)
      << root_only.text;
  // Together as fast as alone: nothing to blame.
  const Finding& even = concurrent_finding({{"0", "0000:18:00.0", "0", ""}, {"1", "0000:2a:00.0", "1", ""}}, 55.2e9);
  EXPECT_NE(even.text.find("concurrent host->GPU traffic scales: 2 GPUs together move"), std::string::npos) << even.text;
}

// --pairs halves together and alone: pairs between hosts that no two pairs share.
TEST(Report, PairsTogetherAgainstAloneNameTheNetworkBetweenTheirHosts) {
  const auto halves = [](const std::string& group, const std::string& concurrency, double beta) {
    RunData run = run_of("cluster.h5", group, "tcp", "stream");
    run.pairs = "halves";
    run.pairing = PairingMode::halves;
    run.concurrency = concurrency;
    for (int pair = 0; pair < 4; ++pair) {
      CurveData curve = hockney_curve("rank" + std::to_string(pair), 50e-6, beta);
      curve.rank = pair;
      curve.peer = pair + 4;
      curve.host = "h" + std::to_string(pair + 1);
      curve.peer_host = "h" + std::to_string(pair + 5);
      run.curves.push_back(curve);
    }
    return run;
  };
  const Report report = make_report({halves("/runs/0001", "together", 12.6e6), halves("/runs/0002", "alone", 50e6)},
                                    std::nullopt, path_words);
  const Finding* f = find_kind(report, "concurrent_vs_alone");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->text.find("together each pair gets 25% of what it gets alone: the 4 pairs share the network between "
                         "their hosts"), std::string::npos) << f->text;
  EXPECT_NE(f->text.find("which caps their sum at 50"), std::string::npos) << f->text;
}

// What the survey records: a plain --pairs halves run and a --pairs all run of the same 8 hosts,
// two switches of 4 joined by a trunk (each way) of `trunk` B/s, each host's link 50 MB/s; 0: one
// switch. A cell across gets the trunk over the cells crossing the same way in its step, at most
// a link; the halves pairs, all crossing at once, a quarter of it each.
RunData survey_halves(double trunk) {
  RunData run = run_of("survey.h5", "/runs/0001", "tcp", "stream");
  run.pairs = "halves";
  run.pairing = PairingMode::halves;
  run.concurrency = "together";
  for (int pair = 0; pair < 4; ++pair) {
    CurveData curve = hockney_curve("rank" + std::to_string(pair), 1e-9, trunk > 0 ? std::min(50e6, trunk / 4) : 50e6);
    curve.rank = pair;
    curve.peer = pair + 4;
    curve.host = "h" + std::to_string(pair + 1);
    curve.peer_host = "h" + std::to_string(pair + 5);
    curve.wall_seconds.assign(curve.bytes.size(), 0.25);
    run.curves.push_back(curve);
  }
  return run;
}

RunData survey_all_pairs(double trunk) {
  RunData run = run_of("survey.h5", "/runs/0002", "tcp", "stream");
  run.pairs = "all";
  run.pairing = PairingMode::all;
  MatrixData m;
  for (int h = 1; h <= 8; ++h) m.rank_host.push_back("h" + std::to_string(h));
  m.bytes = {1 << 20};
  m.patterns = {Pattern::stream};
  m.throughput.assign(64, 50e6);
  for (const PairStep& step : pairing_steps({PairingMode::all, 0, 1, 8, 0, 0, false})) {
    int crossing[2] = {0, 0};
    for (int rank : step.timers)
      if ((rank < 4) != (step.peers[static_cast<std::size_t>(rank)].to < 4)) ++crossing[rank < 4 ? 0 : 1];
    for (int rank : step.timers) {
      const int to = step.peers[static_cast<std::size_t>(rank)].to;
      if (trunk > 0 && (rank < 4) != (to < 4))
        m.throughput[static_cast<std::size_t>(rank * 8 + to)] = std::min(50e6, trunk / crossing[rank < 4 ? 0 : 1]);
    }
  }
  for (int r = 0; r < 8; ++r) m.throughput[static_cast<std::size_t>(r * 9)] = std::nan("");
  for (int from = 0; from < 8; ++from)
    for (int to = 0; to < 8; ++to)
      if (const double cell = m.throughput[static_cast<std::size_t>(from * 8 + to)]; cell < 0.8 * 50e6)
        m.flagged.push_back({0, from, to, cell, 50e6});
  run.matrix = m;
  return run;
}

TEST(Report, HalvesAgainstAnAllPairsRunOfTheSameHosts) {
  // A trunk of half a link: the matrix's cells that crossed alone (one pair each way) stand in for
  // the pairs alone; together the 4 pairs share the trunk.
  const Finding* shared = nullptr;
  const Report split = make_report({survey_halves(25e6), survey_all_pairs(25e6)}, std::nullopt, path_words);
  ASSERT_NE(shared = find_kind(split, "concurrent_vs_alone"), nullptr);
  EXPECT_NE(shared->text.find("together each pair gets 25% of what it gets alone: the 4 pairs share the network between"),
            std::string::npos) << shared->text;
  EXPECT_NE(shared->text.find("which caps their sum at 25.0 MB/s (at 1 MiB; the fastest all-pairs cells"), std::string::npos)
      << shared->text;
  // The cells flagged across the trunk are the split's: counted in its finding, not listed.
  const std::vector<std::string>& matrix_findings = split.runs[1].findings;
  ASSERT_EQ(matrix_findings.size(), 1u);
  EXPECT_NE(matrix_findings[0].find("the hosts split into {h1, h2, h3, h4} and {h5, h6, h7, h8} at 1 MiB: across "),
            std::string::npos) << matrix_findings[0];
  EXPECT_NE(matrix_findings[0].find("the " + std::to_string(survey_all_pairs(25e6).matrix->flagged.size()) +
                                    " flagged links all cross between the groups"), std::string::npos)
      << matrix_findings[0];
  // The groups, for scripts and the heat map: the matrix run's host_groups.
  const nlohmann::json groups = report_json(split)["runs"][1]["host_groups"];
  ASSERT_EQ(groups.size(), 1u) << groups;
  EXPECT_EQ(groups[0]["groups"], nlohmann::json::parse(R"([["h1","h2","h3","h4"],["h5","h6","h7","h8"]])"));
  EXPECT_NEAR(groups[0]["across_at_once_B_per_s"].get<double>(), 25e6, 1e3);
}

// A tapered fat tree: the trunk at 1.5 links, so a pair crossing alone gets a link's rate, and the
// halves step of the matrix is as crowded as the halves run. The verdict must not take the pairs'
// own cells for them alone: it names the groups and the trunk from the crowds.
TEST(Report, HalvesAcrossATrunkFasterThanOneLink) {
  const Report report = make_report({survey_halves(75e6), survey_all_pairs(75e6)}, std::nullopt, path_words);
  const Finding* shared = find_kind(report, "concurrent_vs_alone");
  ASSERT_NE(shared, nullptr);
  EXPECT_NEAR(shared->ratio, 18.75e6 / 50e6, 0.01) << shared->text;
  EXPECT_NE(shared->text.find("which caps their sum at 75.0 MB/s"), std::string::npos) << shared->text;
  EXPECT_NE(shared->text.find("the pairs cross from {h1, h2, h3, h4} to {h5, h6, h7, h8}, where the all-pairs cells "
                              "crossing at once moved 75.0 MB/s together: a link between the groups"),
            std::string::npos) << shared->text;
  const nlohmann::json groups = report_json(report)["runs"][1]["host_groups"];
  ASSERT_EQ(groups.size(), 1u) << groups;
  EXPECT_NEAR(groups[0]["across_at_once_B_per_s"].get<double>(), 75e6, 1e3);
}

// One switch: no groups, and no cell of the matrix measured alone. It says it cannot tell, and
// what would, with its cost: the 4 pairs in turn, each as long as the run's 7 sizes of 0.25 s.
TEST(Report, HalvesAgainstAHealthyMatrixCannotTellAlone) {
  const Report healthy = make_report({survey_halves(0), survey_all_pairs(0)}, std::nullopt, path_words);
  EXPECT_TRUE(report_json(healthy)["runs"][1]["host_groups"].empty());
  EXPECT_EQ(find_kind(healthy, "concurrent_vs_alone"), nullptr);
  const Finding* unknown = find_kind(healthy, "concurrent_alone_unknown");
  ASSERT_NE(unknown, nullptr);
  const std::string cost = format_seconds(4 * 0.25 * static_cast<double>(survey_halves(0).curves[0].bytes.size()));
  EXPECT_NE(unknown->text.find("4 pairs together move 200 MB/s at 1 MiB; what each gets alone the all-pairs run cannot "
                               "tell"), std::string::npos) << unknown->text;
  EXPECT_NE(unknown->text.find("--pairs halves --concurrency alone measures it (about " + cost), std::string::npos)
      << unknown->text;
}

// A survey holds two all-pairs runs of the same ranks, of host and of GPU memory: the host memory
// pairs are told once, against the host memory matrix, never against the other.
TEST(Report, HalvesAreToldOnceAgainstTheMatrixOfTheirOwnMemory) {
  RunData gpu_matrix = survey_all_pairs(0);
  gpu_matrix.group = "/runs/0003";
  gpu_matrix.facts["messages"] = "GPU memory";
  const Report report = make_report({survey_halves(0), survey_all_pairs(0), gpu_matrix}, std::nullopt, path_words);
  std::vector<std::vector<std::string>> compared;
  for (const Finding& finding : report.findings)
    if (finding.kind.rfind("concurrent", 0) == 0) compared.push_back(finding.runs);
  EXPECT_EQ(compared, (std::vector<std::vector<std::string>>{{"survey.h5:/runs/0001", "survey.h5:/runs/0002"}}));
}

TEST(Report, PageableAgainstPinnedAndStagedAgainstDirect) {
  const RunData pinned = copy_run("/runs/0001", "together", "pinned", 50e9, 1);
  const RunData pageable = copy_run("/runs/0002", "together", "pageable", 20e9, 1);
  RunData direct = run_of("n.h5", "/runs/0003", "mpi", "stream");
  direct.facts = {{"messages", "GPU memory"}, {"gpu_path", "direct (auto: MPI is CUDA-aware)"}};
  direct.curves = {hockney_curve("rank0", 3e-6, 40e9)};
  RunData staged = direct;
  staged.group = "/runs/0004";
  staged.facts["gpu_path"] = "staged (auto: ...)";
  staged.curves = {hockney_curve("rank0", 20e-6, 10e9)};
  const Report report = make_report({pinned, pageable, direct, staged}, std::nullopt, path_words);
  const Finding* memory = find_kind(report, "pageable_vs_pinned");
  ASSERT_NE(memory, nullptr);
  EXPECT_NEAR(memory->ratio, 0.4, 0.01);
  EXPECT_NE(memory->text.find("pageable host memory reaches 40% of pinned memory's peak"), std::string::npos) << memory->text;
  const Finding* path = find_kind(report, "staged_vs_direct");
  ASSERT_NE(path, nullptr);
  EXPECT_NEAR(path->ratio, 0.25, 0.01);
  EXPECT_NE(path->text.find("staging through pinned host buffers reaches 25%"), std::string::npos) << path->text;
}

TEST(Report, TheSlowestPairAndFlaggedLinks) {
  RunData pairs = run_of("c.h5", "/runs/0001", "mpi", "stream");
  pairs.pairs = "halves";
  for (int r = 0; r < 3; ++r) {
    pairs.curves.push_back(hockney_curve("rank" + std::to_string(r), 2e-6, r == 1 ? 6e9 : 10e9));
    pairs.curves.back().rank = r;
    pairs.curves.back().peer = r + 3;
    pairs.curves.back().peer_host = "far";
  }
  const double top = pairs.curves[0].bytes.back();
  pairs.aggregate = AggregateData{{top}, {26e9}, {6e9}, {1}};
  RunData matrix = run_of("c.h5", "/runs/0002", "mpi", "stream");
  MatrixData m;
  m.bytes = {1048576};
  m.rank_host = {"a", "a", "b", "b"};
  m.rank_gpu = {"", "", "", ""};
  m.classes = {"one host, host buffers", "two hosts, host buffers"};
  m.cell_class = std::vector<int>(16, 1);
  m.flagged = {{0, 3, 1, 4e9, 8e9}};
  matrix.matrix = m;
  const Report report = make_report({pairs, matrix}, std::nullopt, path_words);
  ASSERT_EQ(report.runs[0].findings.size(), 1u);
  const std::string& slowest = report.runs[0].findings[0];
  EXPECT_NE(slowest.find("the slowest is rank 1 -> rank 4 (alpha -> far)"), std::string::npos) << slowest;
  EXPECT_NE(slowest.find("60% of the median pair"), std::string::npos) << slowest;
  EXPECT_NE(slowest.find("of 3 pairs at once, the slowest"), std::string::npos) << slowest;
  EXPECT_NE(slowest.find("all pairs together move 26.0 GB/s"), std::string::npos) << slowest;
  // Measured one at a time, the pairs never moved a sum together.
  pairs.concurrency = "alone";
  const std::string alone = make_report({pairs}, std::nullopt, path_words).runs[0].findings.at(0);
  EXPECT_NE(alone.find("of 3 pairs, each alone, the slowest is rank 1"), std::string::npos) << alone;
  EXPECT_EQ(alone.find("together"), std::string::npos) << alone;
  ASSERT_EQ(report.runs[1].findings.size(), 1u);
  const std::string& flagged = report.runs[1].findings[0];
  EXPECT_NE(flagged.find("rank 3 (b) -> rank 1 (a): 4.00 GB/s at 1 MiB, 50% of the median of its class 'two hosts"),
            std::string::npos) << flagged;
}

TEST(Report, FilesSideBySideWithRatiosAndAsJson) {
  RunData a = copy_run("/runs/0001", "together", "pinned", 50e9, 1), b = a;
  b.file = "other.h5";
  b.curves = {hockney_curve("rank0", 10e-6, 25e9, {63.015e9, "PCIe Gen5 x16"})};
  const Report report = make_report({a, b}, std::nullopt, path_words);
  ASSERT_EQ(report.comparisons.size(), 1u);
  ASSERT_EQ(report.comparisons[0].runs.size(), 2u);
  EXPECT_DOUBLE_EQ(report.comparisons[0].runs[0].peak_ratio, 1);
  EXPECT_NEAR(report.comparisons[0].runs[1].peak_ratio, 0.5, 0.01);
  EXPECT_NEAR(report.comparisons[0].runs[1].latency_ratio, 2, 0.01);
  const nlohmann::json json = report_json(report);
  EXPECT_EQ(json["schema"], kReportSchema);
  EXPECT_NEAR(json["comparisons"][0]["runs"][1]["peak_ratio"].get<double>(), 0.5, 0.01);
  EXPECT_NEAR(json["runs"][1]["curves"][0]["hockney"]["beta_B_per_s"].get<double>(), 25e9, 1e4);
  EXPECT_EQ(json["runs"][1]["curves"][0]["link_peak"]["from"], "record");
  EXPECT_NE(report_text(report).find("Side by side"), std::string::npos);
}

TEST(Report, LinkJudgesCurvesWithoutAPeakAndUnfinishedRunsAreNamed) {
  RunData run = run_of("x.h5", "/runs/0001", "tcp", "stream", RunStatus::incomplete, "interrupted by SIGINT");
  run.curves = {hockney_curve("rank0", 20e-6, 10e9)};
  const Report report = make_report({run}, LinkPeak{12.5e9, "100 Gb/s Ethernet"}, path_words);
  EXPECT_TRUE(report.runs[0].curves[0].link_peak_given);
  EXPECT_NE(report.runs[0].curves[0].verdict.find("80% of the theoretical 12.5 GB/s, very good"), std::string::npos)
      << report.runs[0].curves[0].verdict;
  const std::string text = report_text(report);
  EXPECT_NE(text.find("INCOMPLETE: interrupted by SIGINT"), std::string::npos) << text;
  EXPECT_NE(text.find("from --link"), std::string::npos) << text;
}

// Rank 0's curve with the sizes, times and trials of `c`.
CurveData curve_of(const test::SyntheticCurve& c) {
  CurveData curve;
  curve.name = "rank0";
  curve.bytes = curve.bytes_per_transfer = c.bytes;
  curve.seconds = c.seconds;
  curve.trial_seconds = c.trials;
  return curve;
}

// A run of `module` whose one curve jumps x2 at 64 KiB (trials and all), with these facts.
RunData jumping_run(const std::string& module, const PlacementFacts& facts) {
  RunData run = run_of("p.h5", "/runs/0001", module, "stream");
  run.facts = facts;
  run.curves = {curve_of(test::synthetic_curve(
      test::switching(test::hockney(2e-6, 10e9), 65533, test::hockney(10e-6, 10e9)), {0.01, 0.01, 3}, 7))};
  return run;
}

TEST(Report, ABreakSpeaksTheWordsOfItsPath) {
  const std::vector<std::pair<RunData, std::string>> cases{
      {jumping_run("mpi", {{"messages", "host memory"}, {"gpu_path", "host"}}), "eager to rendezvous"},
      {jumping_run("cudaMemcpy", {{"direction", "d2d"}, {"copy", "copy engine: cudaMemcpyAsync"}}), "L2 cache"},
      {jumping_run("cudaMemcpy", {{"direction", "h2d"}, {"host_memory", "pageable (malloc): ..."}}),
       "the driver stages pageable memory"},
      {jumping_run("cudaMemcpy", {{"direction", "h2d"}, {"host_memory", "pinned (cudaMallocHost)"}}), "DMA"},
      {jumping_run("cudaMemcpy", {{"direction", "h2d"}, {"host_memory", "pinned (cudaMallocHost)"}, {"copy", "SM copy kernel: ..."}}),
       "the copy kernel (--copy sm)"},
      {jumping_run("nccl", {}), "LL128"},
      {jumping_run("memcpy", {}), "cache level"},
  };
  for (const auto& [run, words] : cases) {
    const Report report = make_report({run}, std::nullopt, path_words);
    const CurveReport& c = report.runs.at(0).curves.at(0);
    ASSERT_EQ(c.hockney.breaks.size(), 1u) << run.module;
    EXPECT_EQ(c.hockney.breaks[0].bytes, 65533);
    EXPECT_EQ(c.hockney.breaks[0].kind, BreakKind::jump);
    const std::string said = describe_break(c.hockney.breaks[0], c);
    EXPECT_NE(said.find(words), std::string::npos) << said;
    if (run.module != "mpi") {
      EXPECT_EQ(said.find("rendezvous"), std::string::npos) << "MPI's words for " << run.module << ": " << said;
    }
    const nlohmann::json json = report_json(report)["runs"][0]["curves"][0]["breaks"][0];
    EXPECT_EQ(json["kind"], "jump");
    EXPECT_NE(json["meaning"].get<std::string>().find(words), std::string::npos) << json.dump();
    EXPECT_NEAR(json["fastest_after_s"].get<double>() / json["fastest_before_s"].get<double>(), json["jump"].get<double>(), 1e-9);
  }
}

// An mpi run as it records the sizes its MPI is set to switch at, on one host (peer "alpha") or
// between two; its curve steps by `step` at 64 KiB.
RunData set_run(const std::string& peer_host, double step) {
  RunData run = run_of("p.h5", "/runs/0001", "mpi", "pingpong");
  run.facts = {{"messages", "host memory"}, {"gpu_path", "host"},
               {"mpi_size_settings", "btl_vader_max_inline_send=256 btl_vader_eager_limit=65536 btl_tcp_eager_limit=32768"}};
  const auto below = test::hockney(2e-6, 10e9);
  CurveData curve = curve_of(test::synthetic_curve(
      test::switching(below, 65533, [&](double n) { return step * below(n); }), {0.003, 0.003, 3}, 11));
  curve.host = "alpha";
  curve.peer = 1;
  curve.peer_host = peer_host;
  run.curves = {curve};
  return run;
}

TEST(Report, TheSwitchesAnMpiIsSetToMakeNameItsBreaksAndAreLookedAtWhereNoneShows) {
  const Report report = make_report({set_run("alpha", 2)}, std::nullopt, path_words);
  const CurveReport& c = report.runs.at(0).curves.at(0);
  ASSERT_EQ(c.hockney.breaks.size(), 1u);
  const std::string said = describe_break(c.hockney.breaks[0], c);
  EXPECT_NE(said.find("probably the switch this path is set to make at 64 KiB (btl_vader_eager_limit = 65536): eager "
                      "sends end"), std::string::npos) << said;
  // On one host the shared-memory settings apply, not TCP's; both inside the curve's sizes.
  ASSERT_EQ(c.set_switches.size(), 2u);
  EXPECT_EQ(c.set_switches[0].set.setting, "btl_vader_max_inline_send = 256");
  EXPECT_EQ(c.set_switches[0].break_bytes, 0) << "no break beside it";
  EXPECT_NEAR(c.set_switches[0].step, 1, 0.03) << "and the curve does not step there";
  EXPECT_EQ(c.set_switches[1].break_bytes, 65533);
  EXPECT_NEAR(c.set_switches[1].step, 2, 0.06);
  const std::string text = report_text(report);
  EXPECT_NE(text.find("at 256 B the path is set to switch here (btl_vader_max_inline_send = 256)"), std::string::npos) << text;
  EXPECT_NE(text.find("cost about alike here"), std::string::npos) << text;
  const nlohmann::json curve = report_json(report)["runs"][0]["curves"][0];
  EXPECT_EQ(curve["breaks"][0]["set_switch"], "btl_vader_eager_limit = 65536");
  EXPECT_EQ(curve["set_switches"][1]["break_bytes"], 65533);
  EXPECT_TRUE(curve["set_switches"][0]["break_bytes"].is_null());

  // Between hosts TCP's limit applies, two NetPIPE steps from the break: it names no break.
  const CurveReport across = make_report({set_run("beta", 2)}, std::nullopt, path_words).runs[0].curves[0];
  ASSERT_EQ(across.set_switches.size(), 1u);
  EXPECT_EQ(across.set_switches[0].set.setting, "btl_tcp_eager_limit = 32768");
  ASSERT_EQ(across.hockney.breaks.size(), 1u);
  EXPECT_NE(describe_break(across.hockney.breaks[0], across).find("eager to rendezvous"), std::string::npos)
      << "the path's own words";

  // A step too small to be told as a break is still read where the setting says it is.
  const CurveReport weak = make_report({set_run("alpha", 1.18)}, std::nullopt, path_words).runs[0].curves[0];
  EXPECT_TRUE(weak.hockney.breaks.empty()) << weak.verdict;
  ASSERT_EQ(weak.set_switches.size(), 2u);
  EXPECT_NEAR(weak.set_switches[1].step, 1.18, 0.03);
  EXPECT_EQ(describe_set_switch(weak.set_switches[1]).find("alike"), std::string::npos);
}

TEST(Report, AShortfallSpeaksTheWordsOfItsPath) {
  RunData run = copy_run("/runs/0001", "together", "pageable", 20e9, 1);  // 32% of PCIe Gen5 x16
  const std::string verdict = make_report({run}, std::nullopt, path_words).runs[0].curves[0].verdict;
  EXPECT_NE(verdict.find("poor: under half the theoretical peak"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("on this path the cause can be the driver's staging of pageable memory"), std::string::npos) << verdict;
}

TEST(PathWords, EveryModuleSaysWhatAFeatureOfItsPathCanMean) {
  for (const CatalogEntry& entry : module_catalog()) {
    ASSERT_NE(entry.info.words, nullptr) << entry.info.name;
    const PathWords words = path_words(entry.info.name, {});
    for (const std::string* clause : {&words.jump, &words.drop, &words.slope, &words.shortfall})
      EXPECT_GT(clause->size(), 20u) << entry.info.name;
  }
  const auto jump = [](const std::string& module, const PlacementFacts& facts) { return path_words(module, facts).jump; };
  EXPECT_NE(jump("mpi", {{"messages", "GPU memory"}, {"gpu_path", "staged (auto: ...)"}}).find("--chunk"), std::string::npos);
  EXPECT_NE(jump("mpi", {{"messages", "GPU memory"}, {"gpu_path", "direct (auto: ...)"}}).find("CUDA-aware"), std::string::npos);
  EXPECT_NE(jump("tcp", {{"tcp_nodelay", "off"}}).find("Nagle"), std::string::npos);
  EXPECT_EQ(jump("tcp", {{"tcp_nodelay", "on"}}).find("Nagle"), std::string::npos);
  EXPECT_NE(jump("cuMemcpy", {{"direction", "d2d"}, {"copy", "SM copy kernel: ..."}}).find("launch"), std::string::npos);
  EXPECT_NE(jump("warp", {}).find("does not know the module 'warp'"), std::string::npos);
  // Open MPI's TCP limits apply on one host too where no shared-memory transport was opened.
  const std::vector<SetSwitch> tcp =
      path_words("mpi", {{"mpi_size_settings", "btl_tcp_eager_limit=4096 btl_tcp_rndv_eager_limit=4096"}}).set_switches;
  ASSERT_EQ(tcp.size(), 2u) << "one switch a reach: the two settings of one size are one";
  EXPECT_EQ(tcp[0].setting, "btl_tcp_eager_limit = 4096, btl_tcp_rndv_eager_limit = 4096");
  EXPECT_NE(tcp[0].reach, tcp[1].reach);
  EXPECT_TRUE(path_words("mpi", {{"messages", "GPU memory"}, {"gpu_path", "direct (auto: ...)"},
                                 {"mpi_size_settings", "btl_tcp_eager_limit=4096"}})
                  .set_switches.empty())
      << "a CUDA-aware MPI's GPU path has switches of its own";
}

TEST(Export, NpOutColumnsAreBytesNetpipeMbpsAndSeconds) {
  RunData run = run_of("x.h5", "/runs/0001", "mpi", "pingpong");
  run.curves = {hockney_curve("rank0", 1e-6, 1e9)};
  const std::string text = np_out_text({run});
  ASSERT_EQ(text.rfind("# npgpu", 0), 0u) << "a header comment names the columns";
  const std::size_t line = text.find("\n     256 ");
  ASSERT_NE(line, std::string::npos) << text;
  double bytes = 0, mbps = 0, seconds = 0;
  ASSERT_EQ(std::sscanf(text.c_str() + line, "%lf %lf %lf", &bytes, &mbps, &seconds), 3);
  EXPECT_EQ(bytes, 256);
  EXPECT_NEAR(seconds, 1e-6 + 256 / 1e9, 1e-12);
  EXPECT_NEAR(mbps, 256 * 8 / seconds / 1048576, 1e-3) << "NetPIPE 3.x: bits/s over 2^20";
  const std::string csv = csv_text({run});
  EXPECT_EQ(csv.rfind("file,run,module,pattern,status,curve", 0), 0u);
  EXPECT_NE(csv.find("x.h5,/runs/0001,mpi,pingpong,complete,rank0,alpha,,256,256,median,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace npgpu
