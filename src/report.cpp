#include "npgpu/report.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

#include "npgpu/efficiency.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

// A jump of the time by more than this at a break reads as a protocol switch.
constexpr double kJump = 1.1;

std::string up_to_parenthesis(const std::string& text) { return text.substr(0, text.find(" (")); }

std::string first_word(const std::string& text) { return text.substr(0, text.find_first_of(" :(")); }

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", fraction * 100);
  return text;
}

std::string describe_break(const CurveBreak& b) {
  char factor[32];
  std::snprintf(factor, sizeof factor, "x%.2f", b.jump);
  const std::string at = "at " + format_bytes(static_cast<std::uint64_t>(b.bytes));
  if (b.jump > kJump)
    return at + " (the time jumps " + factor + " above the fit of the smaller sizes: a protocol switch, such as "
                "eager to rendezvous)";
  if (b.jump < 1 / kJump)
    return at + " (the time falls to " + factor + " of the fit of the smaller sizes: a faster protocol or path takes over)";
  return at + " (Hockney's beta changes from " + format_throughput(b.beta_before_B_per_s, Units::decimal) + " to " +
         format_throughput(b.beta_after_B_per_s, Units::decimal) + ": a change of regime)";
}

// Breaks found in a curve the model does not follow are noise, not protocol switches.
std::string poor_fit_sentence(const HockneyFit& worst, const CurveReport& c) {
  const std::string where = c.hockney.segments.size() == 1 ? ""
                            : " from " + format_bytes(static_cast<std::uint64_t>(c.bytes[worst.first])) + " to " +
                                  format_bytes(static_cast<std::uint64_t>(c.bytes[worst.last]));
  return "poor fit: rms residual " + percent(worst.rms_relative_residual) + where +
         ", the latency/bandwidth model does not describe this curve: its alpha, beta, n1/2 and breaks mean nothing "
         "here";
}

std::string curve_verdict(const CurveReport& c) {
  std::string verdict;
  if (c.link_peak.bytes_per_second > 0)
    verdict = percent(c.peak_fraction) + " of the theoretical " +
              format_throughput(c.link_peak.bytes_per_second, Units::decimal) + ", " + efficiency_verdict(c.peak_fraction);
  else
    verdict = "no theoretical peak for this path" + (c.link_peak.how.empty() ? "" : " (" + c.link_peak.how + ")") +
              "; --link NAME judges it against a known link";
  if (const HockneyFit* worst = worst_segment(c.hockney); worst != nullptr && is_poor(*worst)) {
    verdict += "; " + poor_fit_sentence(*worst, c);
  } else if (!c.hockney.breaks.empty()) {
    verdict += "; the curve leaves the Hockney fit";
    for (const CurveBreak& b : c.hockney.breaks) verdict += (&b == &c.hockney.breaks.front() ? " " : " and ") + describe_break(b);
  }
  return verdict;
}

CurveReport curve_report(const CurveData& curve, const std::optional<LinkPeak>& link) {
  CurveReport report;
  report.name = curve.name;
  report.host = curve.host;
  report.peer_host = curve.peer_host;
  std::vector<double> throughput;
  for (std::size_t i = 0; i < curve.bytes.size(); ++i) throughput.push_back(curve.throughput(i));
  report.summary = summarize_points(curve.bytes, curve.seconds, throughput);
  report.bytes = curve.bytes;
  report.hockney = analyse_hockney(curve.bytes_per_transfer, curve.seconds);
  for (CurveBreak& b : report.hockney.breaks) b.bytes = curve.bytes[b.index];
  report.link_peak = curve.link_peak;
  if (report.link_peak.bytes_per_second <= 0 && link) {
    report.link_peak = *link;
    report.link_peak_given = true;
  }
  if (report.link_peak.bytes_per_second > 0)
    report.peak_fraction = report.summary.peak_throughput / report.link_peak.bytes_per_second;
  report.verdict = curve.bytes.empty() ? "no size was finished" : curve_verdict(report);
  return report;
}

}  // namespace

std::string run_aspect(const RunData& run, const std::string& aspect) {
  const auto fact = [&](const char* name) {
    const auto found = run.facts.find(name);
    return found == run.facts.end() ? std::string() : found->second;
  };
  if (aspect == "direction") return fact("direction");
  if (aspect == "memory") return up_to_parenthesis(fact("host_memory"));
  if (aspect == "messages") return fact("messages");
  if (aspect == "path") return first_word(fact("gpu_path"));
  if (aspect == "concurrency") {
    // Only where ranks measured their own paths, or pairs their links (--pairs halves), several at
    // once or in turn.
    const bool per_rank = !run.curves.empty() && run.curves.front().peer < 0;
    return (per_rank || run.pairs == "halves") && (run.curves.size() > 1 || run.concurrency == "alone") ? run.concurrency
                                                                                                          : "";
  }
  if (aspect == "pairs") return run.pairs.empty() ? "" : "pairs " + run.pairs;
  return {};
}

std::string run_label(const RunData& run, const std::string& leave_out) {
  std::string label = run.module + " " + run.pattern;
  for (const char* aspect : {"direction", "memory", "messages", "path", "concurrency", "pairs"})
    if (const std::string value = run_aspect(run, aspect); !value.empty() && leave_out != aspect) label += ", " + value;
  return label;
}

Report make_report(const std::vector<RunData>& runs, const std::optional<LinkPeak>& link) {
  Report report;
  for (const RunData& run : runs) {
    RunReport r;
    r.file = run.file;
    r.group = run.group;
    r.label = run_label(run);
    r.status = run.status;
    r.status_reason = run.status_reason;
    r.command_line = run.command_line;
    r.started_utc = run.started_utc;
    for (const CurveData& curve : run.curves) r.curves.push_back(curve_report(curve, link));
    r.findings = pair_findings(run);
    r.host_splits = host_splits(run);
    r.expectations = run.expectations;
    report.runs.push_back(std::move(r));
  }
  report.findings = cross_run_findings(runs, report.runs);
  report.comparisons = compare_files(runs, report.runs);
  return report;
}

}  // namespace npgpu
