#pragma once
// `npgpu report`: from runs read back to answers. Each curve's latency, peak, Hockney fit, breaks
// and share of its link's theoretical peak; verdicts that take several curves (concurrent against
// alone, pageable against pinned, staged against direct, the slowest pair, flagged links); and
// runs of several files side by side. Building the report is pure; text and JSON only format it.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "report/hockney.hpp"
#include "report/set_switches.hpp"
#include "npgpu/path_words.hpp"
#include "results/results.hpp"
#include "report/host_groups.hpp"
#include "report/layers.hpp"
#include "report/load_impact.hpp"
#include "results/run_data.hpp"

namespace npgpu {

struct CurveReport {
  std::string name, host, peer_host;
  std::vector<double> bytes;  // message sizes, which name the sizes of segments and breaks
  CurveSummary summary;      // latency, peak and n1/2 as measured (headline statistic)
  HockneyAnalysis hockney;   // over bytes per transfer, so beta compares with the throughput
  LinkPeak link_peak;        // the record's, or the one --link names
  bool link_peak_given = false;  // from --link rather than the record
  double peak_fraction = 0;  // summary.peak_throughput / link_peak; 0 when the peak is unknown
  PathWords words;           // what a break or a shortfall can mean on this curve's path
  std::vector<SwitchCheck> set_switches;  // the curve where its path's settings say it switches
  std::string verdict;       // plain words
};

// The hosts of an all-pairs matrix in groups, at one of its sizes (host_groups.hpp).
struct MatrixSplit {
  double bytes = 0;
  HostSplit split;
};

struct RunReport {
  std::string file, group, label, status_reason, command_line, started_utc;
  RunStatus status = RunStatus::complete;
  std::vector<CurveReport> curves;
  std::vector<std::string> findings;  // verdicts about this run alone: pairs, flagged links, host splits
  std::vector<MatrixSplit> host_splits;
  std::vector<ExpectationOutcome> expectations;
};

// A verdict that takes curves of two runs.
struct Finding {
  // concurrent_vs_alone, concurrent_alone_unknown, pageable_vs_pinned, staged_vs_direct, layer_far_below
  std::string kind;
  std::vector<std::string> runs;  // "file:/runs/0001" of the runs it compares
  double ratio = 0;  // the second run's figure over the first's; NaN where the runs cannot tell
  std::string text;
};

// The same kind of run in several files, each against the first file's.
struct ComparedRun {
  std::string run;  // "file:/runs/0001"
  double latency_s = 0, peak_B_per_s = 0;
  double latency_ratio = 0, peak_ratio = 0;  // against the first entry
};
struct Comparison {
  std::string label, curve;
  std::vector<ComparedRun> runs;
};

struct Report {
  std::vector<RunReport> runs;
  std::vector<Finding> findings;
  std::vector<Comparison> comparisons;
  std::vector<LayerStep> layers;  // each module against the one under it between the same ends
  std::vector<LoadImpact> load;   // each run under load against its isolated twin
};

// `link` (from --link) judges curves whose record has no peak of its own; `words` says what a
// break or a shortfall means on each run's path (the catalog's path_words).
Report make_report(const std::vector<RunData>& runs, const std::optional<LinkPeak>& link, PathWordsOf words);

// What a break of the curve can mean on its path: the switch its settings put beside it, or else
// what a break of that kind can mean there.
std::string break_meaning(const CurveBreak& b, const CurveReport& curve);
// The break in words: what the time does there, the evidence, and what that can mean.
std::string describe_break(const CurveBreak& b, const CurveReport& curve);
// What the curve does where its path's settings say it switches, in words.
std::string describe_set_switch(const SwitchCheck& check);
// A break the sweep's pieces show that did not show again when measured again, in words.
std::string describe_withdrawn(const CurveBreak& b);

// What a run is, in words that tell runs apart: module, pattern, direction, memory, path, ...
// `leave_out` drops one aspect ("concurrency", "memory", "path") to pair runs that differ in it.
std::string run_label(const RunData& run, const std::string& leave_out = "");
// One of those aspects ("direction", "memory", "messages", "path", "concurrency", "pairs", "load"); empty
// when the run has none.
std::string run_aspect(const RunData& run, const std::string& aspect);

// The verdicts across runs (report_findings.cpp).
std::vector<Finding> cross_run_findings(const std::vector<RunData>& runs, const std::vector<RunReport>& reports);
std::vector<std::string> pair_findings(const RunData& run);
std::vector<MatrixSplit> host_splits(const RunData& run);
std::vector<Comparison> compare_files(const std::vector<RunData>& runs, const std::vector<RunReport>& reports);

std::string report_text(const Report& report);
nlohmann::json report_json(const Report& report);

// The version of the JSON's layout, documented in docs/report-json.md.
inline constexpr const char* kReportSchema = "npgpu-report-1";

}  // namespace npgpu
