// npgpu report, export and the run's expectations, as a user meets them: the real binary on the
// checked-in records of tests/data/report (tests/data/make_report_records.py made them) and on
// records of real runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "report/break_checks.hpp"
#include "report/set_switches.hpp"
#include "support/command.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {
namespace {

std::string data(const std::string& name) { return std::string(NPGPU_SOURCE_DIR) + "/tests/data/report/" + name; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing: " << part << "\nin:\n" << text;
}

TEST(Report, EveryVerdictFromTheCheckedInRecords) {
  const CommandResult r = npgpu({"report", data("node.h5"), data("cluster.h5"), data("cluster-b.h5")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& t = r.out;
  expect_contains(t, "together each GPU gets 73% of what it gets alone: something the 4 GPUs share caps their sum at 162");
  expect_contains(t, "the record does not say what");
  expect_contains(t, "pageable host memory reaches 35% of pinned memory's peak for cudaMemcpy stream, h2d (18.9 GB/s");
  expect_contains(t, "staging through pinned host buffers reaches 28% of the direct path's peak");
  expect_contains(t, "the slowest is rank 1 -> rank 4 (a1 -> b1)");
  expect_contains(t, "flagged link: rank 3 (b) -> rank 1 (a): 4.00 GB/s at 1 MiB, 50% of the median of its class");
  expect_contains(t, "at 64 KiB the time jumps x1.77 above what the smaller sizes predict");
  expect_contains(t, "probably the switch this path is set to make at 64 KiB (btl_tcp_eager_limit = 65536): eager sends end");
  expect_contains(t, "at 64 KiB the path is set to switch here (btl_tcp_eager_limit = 65536)");
  expect_contains(t, "INCOMPLETE: interrupted by SIGTERM");
  expect_contains(t, "FAILED: rank 1: a wait passed its bound");
  expect_contains(t, "EXPECTATION NOT MET: --expect-bw 64M=20GB/s: rank0 reached");
  expect_contains(t, "of the theoretical 63.0 GB/s, excellent");
  expect_contains(t, "Side by side");
  expect_contains(t, "cluster-b.h5:/runs/0001: latency");
  expect_contains(t, "the latency/bandwidth model does not describe this curve");
}

TEST(Report, SaysWhenTheHockneyFitIsPoor) {
  const CommandResult r = npgpu({"report", data("cluster-b.h5:/runs/0003")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r.out, "poor fit: it misses by ");
  expect_contains(r.out, "worst: a poor fit\n");
  EXPECT_EQ(r.out.find("changes regime"), std::string::npos) << "sizes that no line follows are no breaks:\n" << r.out;
}

TEST(Report, JsonHoldsTheSameForScripts) {
  const CommandResult r = npgpu({"report", "--json", data("node.h5"), data("cluster.h5"), data("cluster-b.h5")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["schema"], "npgpu-report-1");
  ASSERT_EQ(report["runs"].size(), 14u) << "4 + 7 + 3 runs";
  std::set<std::string> kinds;
  for (const auto& finding : report["findings"]) kinds.insert(finding["kind"]);
  EXPECT_EQ(kinds, (std::set<std::string>{"concurrent_vs_alone", "pageable_vs_pinned", "staged_vs_direct"}));
  const auto& pingpong = report["runs"][4];
  EXPECT_EQ(pingpong["run"], "/runs/0001");
  EXPECT_EQ(pingpong["curves"][0]["breaks"][0]["bytes"], 65536);
  EXPECT_NEAR(pingpong["curves"][0]["breaks"][0]["jump"].get<double>(), 1.78, 0.02) << "25.96 us against 14.6 us";
  EXPECT_EQ(pingpong["curves"][0]["breaks"][0]["set_switch"], "btl_tcp_eager_limit = 65536");
  EXPECT_EQ(pingpong["curves"][0]["set_switches"][0]["break_bytes"], 65536);
  EXPECT_EQ(pingpong["curves"][0]["segments"].size(), 2u);
  EXPECT_NEAR(pingpong["curves"][0]["segments"][0]["alpha_s"].get<double>(), 1.5e-6, 0.2e-6);
  EXPECT_EQ(report["runs"][3]["expectations_met"], false);
  EXPECT_EQ(report["runs"][3]["expectations"][0]["option"], "--expect-bw 64M=20GB/s");
  EXPECT_EQ(report["runs"][9]["status"], "incomplete");
  EXPECT_EQ(report["runs"][10]["status"], "failed");
  EXPECT_EQ(report["runs"][12]["status"], "complete") << "a run without a status attribute is complete";
  EXPECT_FALSE(report["comparisons"].empty());
  EXPECT_EQ(report["runs"][0]["curves"][0]["link_peak"]["from"], "record");
  EXPECT_EQ(report["runs"][0]["curves"][0]["grade"], "excellent");
  EXPECT_EQ(pingpong["curves"][0]["poor_fit"], false) << "a protocol switch that the pieces fit";
  EXPECT_EQ(pingpong["curves"][0]["segments"][0]["poor_fit"], false);
  const auto& busy = report["runs"][13]["curves"][0];
  EXPECT_EQ(busy["poor_fit"], true);
  EXPECT_GT(busy["hockney"]["rms_relative_residual"].get<double>(), 0.2);
}

TEST(Report, GpuCopiesSpeakTheirOwnWords) {
  const CommandResult r = npgpu({"report", "--json", data("gpu-paths.h5")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json runs = nlohmann::json::parse(r.out)["runs"];
  ASSERT_EQ(runs.size(), 3u);
  const auto meaning = [&](std::size_t run) {
    const auto& breaks = runs[run]["curves"][0]["breaks"];
    return breaks.size() == 1 ? breaks[0]["meaning"].get<std::string>() : "breaks: " + breaks.dump();
  };
  EXPECT_NE(meaning(0).find("L2 cache"), std::string::npos) << meaning(0);
  EXPECT_EQ(runs[0]["curves"][0]["breaks"][0]["bytes"], 64 << 20) << "the first size past 32 MiB in powers of two";
  EXPECT_NE(meaning(1).find("the driver stages pageable memory"), std::string::npos) << meaning(1);
  EXPECT_EQ(runs[1]["curves"][0]["breaks"][0]["bytes"], 262144);
  EXPECT_EQ(runs[1]["curves"][0]["breaks"][0]["kind"], "jump");
  const std::string fair = runs[2]["curves"][0]["verdict"];
  EXPECT_NE(fair.find("fair"), std::string::npos) << fair;
  EXPECT_NE(fair.find("on this path the cause can be the host link as trained"), std::string::npos) << fair;
  for (const char* mpi : {"eager", "rendezvous", "MPI"})
    EXPECT_EQ(r.out.find(mpi), std::string::npos) << "MPI's words in a report of GPU copies: " << mpi;
}

TEST(Report, OneRunOfAFile) {
  for (const char* spec : {"cluster.h5:/runs/0002", "cluster.h5:2"}) {
    const CommandResult r = npgpu({"report", "--json", data(spec)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    ASSERT_EQ(report["runs"].size(), 1u) << spec;
    EXPECT_EQ(report["runs"][0]["run"], "/runs/0002");
  }
}

TEST(Report, LinkJudgesARunWithoutAPeak) {
  const CommandResult r = npgpu({"report", "--link", "ib-hdr", data("cluster.h5:2")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r.out, "theoretical peak 25.0 GB/s (HDR InfiniBand 4x");
  expect_contains(r.out, "from --link");
}

TEST(Report, BadInputIsOneLineAndExitCode2) {
  TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"report", dir.file("missing.h5")}, "no such file"},
      {{"report", data("plain.h5")}, "an HDF5 file npgpu did not write"},
      {{"report", data("cluster.h5:/runs/0099")}, "no run /runs/0099"},
      {{"report", data("cluster.h5:runs")}, "is not a run"},
      {{"report", "--link", "warp", data("cluster.h5")}, "not a known link"},
      {{"report"}, "records is required"},
      {{"export", data("cluster.h5")}, "--format is required"},
      {{"export", "--format", "xls", data("cluster.h5")}, "--format"},
      {{"export", "--format", "csv", "-o", dir.file("none/out.csv"), data("cluster.h5")}, "cannot write there"},
  };
  for (const auto& [args, says] : cases) {
    const CommandResult r = npgpu(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
    expect_contains(r.err, says);
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(Export, NpOutAndCsvReadBack) {
  TempDir dir;
  const CommandResult np = npgpu({"export", "--format", "np.out", data("cluster.h5:1"), "-o", dir.file("np.out")});
  ASSERT_EQ(np.exit_code, 0) << np.err;
  const CommandResult csv = npgpu({"export", "--format", "csv", data("cluster.h5:1")});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::vector<std::vector<double>> columns;  // bytes, Mbps, seconds
  for (const std::string& line : lines_of(read_text(dir.file("np.out")))) {
    if (line[0] == '#') continue;
    double bytes = 0, mbps = 0, seconds = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf %lf %lf", &bytes, &mbps, &seconds), 3) << line;
    EXPECT_NEAR(mbps, bytes * 8 / seconds / 1048576, mbps * 1e-5) << line;
    columns.push_back({bytes, mbps, seconds});
  }
  const std::vector<std::string> rows = lines_of(csv.out);
  ASSERT_EQ(rows.size(), columns.size() + 1) << "a header and a row per size";
  ASSERT_EQ(columns.size(), 13u) << "1 B to 16 MiB in powers of four";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    std::stringstream row(rows[i + 1]);
    std::vector<std::string> cells;
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    ASSERT_GE(cells.size(), 13u) << rows[i + 1];
    EXPECT_EQ(std::stod(cells[8]), columns[i][0]) << "the same sizes";
    EXPECT_NEAR(std::stod(cells[11]), columns[i][2], 6e-13) << "the same times, np.out to 12 decimals";
  }
}

std::vector<std::string> quick_mpi(const std::vector<std::string>& more) {
  std::vector<std::string> argv = mpirun_npgpu(2, {"pml", "ob1", "btl", "self,vader"});
  argv.insert(argv.end(), {"--module", "mpi"});
  for (const std::string& option : quick_sweep("4K")) argv.push_back(option);
  argv.insert(argv.end(), more.begin(), more.end());
  return argv;
}

TEST(Expectations, AnImpossibleBandwidthExitsWith5AfterTheRecordIsWritten) {
  TempDir dir;
  const CommandResult run = run_command(quick_mpi({"--expect-bw", "1K=1000TB/s", "--expect-latency", "8=10s",
                                                   "-o", dir.file("run.h5"), "--np-out", dir.file("run.np")}));
  EXPECT_EQ(run.exit_code, 5) << run.err;
  expect_contains(run.err, "npgpu: expectation not met: --expect-bw 1K=1000TB/s: rank0 reached");
  expect_contains(run.out, "record: " + dir.file("run.h5"));
  H5File file(dir.file("run.h5"));
  EXPECT_EQ(file.text_attribute("/runs/0001", "status"), "complete") << "the measurement itself went fine";
  EXPECT_EQ(file.number_attribute("/runs/0001/expectations", "met"), 0);
  EXPECT_EQ(file.texts("/runs/0001/expectations/option"),
            (std::vector<std::string>{"--expect-bw 1K=1000TB/s", "--expect-latency 8=10s"}));
  EXPECT_EQ(file.doubles("/runs/0001/expectations/met"), (std::vector<double>{0, 1}));
  EXPECT_NE(read_text(dir.file("run.np")).find("NetPIPE 3.x"), std::string::npos) << "--np-out written too";

  const CommandResult report = npgpu({"report", dir.file("run.h5")});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  expect_contains(report.out, "EXPECTATION NOT MET: --expect-bw 1K=1000TB/s");
  expect_contains(report.out, "Hockney fit");
}

// The report of a quick mpi run over `transport` (vader: shared memory; tcp) with its eager limit
// set to `limit`, swept to `upper`: its curve.
nlohmann::json planted_run(const TempDir& dir, int limit, const std::string& transport = "vader",
                           const std::string& upper = "16K") {
  const std::string record = dir.file(transport + "-eager-" + std::to_string(limit) + ".h5");
  std::vector<std::string> argv = mpirun_npgpu(2, {"pml", "ob1", "btl", transport == "tcp" ? "tcp,self" : "self,vader",
                                                   "btl_" + transport + "_eager_limit", std::to_string(limit)});
  argv.insert(argv.end(), {"--module", "mpi"});
  for (const std::string& option : quick_sweep(upper)) argv.push_back(option);
  argv.insert(argv.end(), {"-o", record});
  const CommandResult run = run_command(argv);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const CommandResult report = npgpu({"report", "--json", record});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  return nlohmann::json::parse(report.out)["runs"][0]["curves"][0];
}

// The break of `breaks` nearest `bytes` within one NetPIPE step (a factor 1.5), or end().
nlohmann::json::const_iterator break_near(const nlohmann::json& breaks, double bytes) {
  const auto off = [&](const nlohmann::json& b) { return std::fabs(std::log(b["bytes"].get<double>() / bytes)); };
  const auto nearest = std::min_element(breaks.begin(), breaks.end(),
                                        [&](const nlohmann::json& a, const nlohmann::json& b) { return off(a) < off(b); });
  return nearest != breaks.end() && off(*nearest) <= std::log(1.5) ? nearest : breaks.end();
}

TEST(Report, NamesTheEagerLimitPlantedWithAnMcaParameter) {
  // Two limits a factor 2 apart, so the break found must move with the parameter. The sweep may
  // tell it a few sizes early where the machine slowed just before the switch (x6.86 at 1536 B for
  // the 2 KiB limit, its sizes measured again all eager): measured again across the setting the
  // MPI reports, it stands. A launch whose report settles nothing near the limit (no break told,
  // none withdrawn: a round measured again across it ran slow, one launch in 25 here beside a niced
  // spinner) is launched again, up to three in all; without the switch found, each fails alike.
  for (int limit : {1024, 2048}) {
    nlohmann::json curve;
    for (int launch = 0; launch < 3; ++launch) {
      TempDir dir;
      curve = planted_run(dir, limit);
      if (break_near(curve["breaks"], limit) != curve["breaks"].end() ||
          break_near(curve["withdrawn_breaks"], limit) != curve["withdrawn_breaks"].end())
        break;
    }
    const nlohmann::json& breaks = curve["breaks"];
    const auto planted = break_near(breaks, limit);
    ASSERT_NE(planted, breaks.end()) << "btl_vader_eager_limit " << limit << ": " << breaks.dump()
                                     << "; withdrawn: " << curve["withdrawn_breaks"].dump();
    EXPECT_EQ((*planted)["kind"], "jump") << "a handshake before the data: " << planted->dump();
    EXPECT_GT((*planted)["jump"].get<double>(), kLeastRepeat);
    // MPI says where it is set to switch, and the report names the break with that setting.
    const std::string setting = "btl_vader_eager_limit = " + std::to_string(limit);
    EXPECT_EQ((*planted)["set_switch"], setting) << planted->dump();
    EXPECT_NE((*planted)["meaning"].get<std::string>().find("eager sends end"), std::string::npos);
    const nlohmann::json& set = curve["set_switches"];
    EXPECT_TRUE(std::any_of(set.begin(), set.end(), [&](const nlohmann::json& s) {
      return s["setting"] == setting && s["break_bytes"] == (*planted)["bytes"];
    })) << set.dump();
    const nlohmann::json& again = (*planted)["measured_again"];
    ASSERT_TRUE(again.is_object()) << "its sizes were measured again: " << planted->dump();
    EXPECT_EQ(again["across_setting"], true) << "and those across the setting: " << planted->dump();
    EXPECT_GT(again["step_again"].get<double>(), kLeastRepeat) << "and the jump repeated";
  }
}

TEST(Report, EverySettingIsMeasuredAgainAcrossWhereTheSweepToldNoBreakNearIt) {
  // The sweep may tell no break near a switch at all (the machine slowed around it), and a break
  // never told would never be measured again: the driver measures the sizes on both sides of each
  // size setting of the MPI's (vader's inline sends, fast boxes and eager limit here) after the sweep.
  // The eager limit is planted at 16 KiB, four times the fast boxes' 4 KiB: at its default 8 KiB
  // its break lay within a factor 2 of the fast boxes in every launch, and the inline sends' break
  // at 256 B is told in most, which left CI's three launches nothing to check.
  constexpr int kLimit = 16384;
  // A sweep may still tell a break near every setting (the machine slowed beside each): then
  // another launch, up to three, until one leaves a setting to check.
  std::size_t checked = 0;
  for (int launch = 0; launch < 3 && checked == 0; ++launch) {
    TempDir dir;
    const nlohmann::json curve = planted_run(dir, kLimit, "vader", "32K");
    const std::vector<double> again = H5File(dir.file("vader-eager-" + std::to_string(kLimit) + ".h5"))
                                          .doubles("/runs/0001/curves/rank0/recheck_bytes");
    const auto measured_again_within = [&](double from, double to) {
      return std::any_of(again.begin(), again.end(), [&](double bytes) { return bytes >= from && bytes <= to; });
    };
    // A break the sweep told within a factor 2 of a setting may be its switch: its own sizes are
    // measured again instead.
    const auto swept_near = [&](double at) {
      for (const char* kind : {"breaks", "withdrawn_breaks"})
        for (const nlohmann::json& b : curve[kind])
          if (b["told_by"] == "sweep" && std::fabs(std::log(b["bytes"].get<double>() / at)) <= std::log(2)) return true;
      return false;
    };
    const nlohmann::json& set = curve["set_switches"];
    ASSERT_GE(set.size(), 3u) << set.dump();
    for (const nlohmann::json& s : set) {
      const double at = s["bytes"].get<double>();
      if (swept_near(at)) continue;
      ++checked;
      EXPECT_TRUE(measured_again_within(at / 2, at / 1.05)) << "below " << s.dump();
      EXPECT_TRUE(measured_again_within(at * 1.05, at * kSwitchReach)) << "above " << s.dump();
    }
  }
  EXPECT_GT(checked, 0u) << "three launches told a break near every setting";
}

TEST(Report, ReadsTheTcpEagerLimitFromTheMpiWhereSharedMemoryIsOff) {
  // Two ranks of one host over TCP: Open MPI's TCP settings apply there, and the report reads them
  // from the MPI (MPI_T), whatever the curve shows.
  TempDir dir;
  const nlohmann::json set = planted_run(dir, 8192, "tcp")["set_switches"];
  const auto eager = std::find_if(set.begin(), set.end(), [](const nlohmann::json& s) {
    return s["setting"].get<std::string>().find("btl_tcp_eager_limit = 8192") != std::string::npos;
  });
  ASSERT_NE(eager, set.end()) << set.dump();
  EXPECT_EQ((*eager)["bytes"], 8192);
  EXPECT_TRUE((*eager)["step"].is_number()) << "the sizes about it were read: " << eager->dump();
  EXPECT_FALSE(std::any_of(set.begin(), set.end(), [](const nlohmann::json& s) {
    return s["setting"].get<std::string>().find("vader") != std::string::npos;
  })) << "no shared-memory transport was opened: " << set.dump();
}

TEST(Report, AStepTheMachineMadeAlongTheSweepIsWithdrawn) {
  // mpi over shared memory from 64 KiB to 2 MiB, and from 512 KiB on a machine twice as slow (the
  // clock planted to run fast from there, as other work taking the cores would): the sweep alone
  // shows a step at 512 KiB; measured again in turn, it is gone, and what the sweep saw beyond is
  // the planted 2. (memcpy has steps of its own at 16 KiB, 64 KiB and 384 KiB here.)
  // Where the rounds measured again were themselves disturbed (spread 64% in one CI launch), the
  // break stands as "too noisy to tell" (ChangePoints unit tests judge that case), and where one
  // round at the plant stepped the other way (x0.74 against x1.175 for the other three, in a
  // launch whose sweep also met a tenfold slowdown at 192 KiB) the rounds cannot tell the
  // machine's part either: the launch is made again, up to 3 times, for one whose measurement
  // again can tell.
  TempDir dir;
  const auto near_the_plant = [](const nlohmann::json& b) {
    return std::fabs(std::log(b["bytes"].get<double>() / 524288)) <= std::log(1.5);
  };
  const auto disturbed_again = [&](const nlohmann::json& b) {
    const nlohmann::json& steps = b["measured_again"];
    if (!steps.is_object()) return false;
    const bool too_noisy_to_tell = std::fabs(std::log(steps["step_swept"].get<double>() / steps["step_again"].get<double>())) <
                                   2 * steps["noise_again"].get<double>();
    const bool a_round_stepped_the_other_way =
        near_the_plant(b) && steps["weakest_round"].is_number() &&
        std::log(steps["weakest_round"].get<double>()) * std::log(steps["step_again"].get<double>()) < 0;
    return too_noisy_to_tell || a_round_stepped_the_other_way;
  };
  std::string record;
  nlohmann::json curve;
  for (int launch = 0; launch < 3; ++launch) {
    record = dir.file("drift" + std::to_string(launch) + ".h5");
    std::vector<std::string> argv = mpirun_npgpu(2, {"pml", "ob1", "btl", "self,vader"});
    argv.insert(argv.end(), {"--module", "mpi", "--lower", "64K", "--upper", "2M", "--test-clock-drift", "512K:2", "-o", record});
    const CommandResult run = run_command(argv);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    expect_contains(run.out, "measured again in turn after the sweep, around its breaks");
    const CommandResult report = npgpu({"report", "--json", record});
    ASSERT_EQ(report.exit_code, 0) << report.err;
    curve = nlohmann::json::parse(report.out)["runs"][0]["curves"][0];
    if (std::none_of(curve["breaks"].begin(), curve["breaks"].end(), disturbed_again)) break;
  }
  const nlohmann::json &breaks = curve["breaks"], &withdrawn = curve["withdrawn_breaks"];
  // Not told: a break near 512 KiB that slows the curve by about the planted 2. memcpy's change of
  // rate at 384 KiB is within a NetPIPE step of it and faster after (x1.05 in one CI launch): that
  // one is the machine's own, and may be told.
  const bool step_told = std::any_of(breaks.begin(), breaks.end(), [&](const nlohmann::json& b) {
    return near_the_plant(b) && b["jump"].get<double>() > 1.25;
  });
  EXPECT_FALSE(step_told) << "the machine's step is not told: " << breaks.dump();
  // The sweep alone showed it: a withdrawn break within a NetPIPE step whose sweep saw about the
  // planted 2 beyond what measuring again did (one size's noise aside).
  const bool planted = std::any_of(withdrawn.begin(), withdrawn.end(), [&](const nlohmann::json& b) {
    const nlohmann::json& steps = b["measured_again"];
    const double machines_part = steps["step_swept"].get<double>() / steps["step_again"].get<double>();
    return near_the_plant(b) && std::fabs(std::log(machines_part / 2)) <= std::log(1.5);
  });
  EXPECT_TRUE(planted) << withdrawn.dump();
  expect_contains(npgpu({"report", record}).out, "not when measured again");
}

TEST(Report, HalvesOfTwoRanksIsOnePairNotAComparison) {
  TempDir dir;
  const CommandResult run = run_command(quick_mpi({"--pairs", "halves", "-o", dir.file("run.h5")}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const CommandResult report = npgpu({"report", dir.file("run.h5")});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  expect_contains(report.out, "one pair only: rank 0 -> rank 1");
  EXPECT_EQ(report.out.find("pairs at once"), std::string::npos) << report.out;
}

TEST(Expectations, MetOnesExitWith0) {
  TempDir dir;
  const CommandResult run = run_command(quick_mpi({"--expect-latency", "8=10s", "-o", dir.file("run.h5")}));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  expect_contains(run.out, "expectations: all 1 met");
  EXPECT_EQ(H5File(dir.file("run.h5")).number_attribute("/runs/0001/expectations", "met"), 1);
}

TEST(Expectations, BadFormsAreRefusedBeforeMeasuring) {
  TempDir dir;
  const CommandResult run = run_command(quick_mpi({"--expect-bw", "1K=fast", "-o", dir.file("run.h5")}));
  EXPECT_EQ(run.exit_code, 2);
  expect_contains(run.err, "SIZE=RATE");
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.h5")));
}

}  // namespace
}  // namespace npgpu::test
