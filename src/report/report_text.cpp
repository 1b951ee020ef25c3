// The report as people read it: one block per run, then the verdicts across runs and the files
// side by side.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/report.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

std::string size(double bytes) { return format_bytes(static_cast<std::uint64_t>(bytes)); }
std::string rate(double bytes_per_second) { return format_throughput(bytes_per_second, Units::decimal); }

std::string printf_text(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string fit_line(const HockneyFit& fit, const std::vector<double>& bytes) {
  std::string line = size(bytes[fit.first]) + " to " + size(bytes[fit.last]) + ": alpha " + format_seconds(fit.alpha_s);
  if (fit.beta_B_per_s > 0)
    line += ", beta " + rate(fit.beta_B_per_s) + ", n1/2 " + size(std::round(fit.half_bytes()));
  else
    line += ", no bandwidth term (the time does not grow with the size)";
  return line + "; residuals " + printf_text("%.1f%%", 100 * fit.rms_relative_residual) + " rms, " +
         printf_text("%.1f%%", 100 * fit.worst_relative_residual) + " worst" + (is_poor(fit) ? ": a poor fit" : "");
}

void curve_text(std::string& out, const CurveReport& c) {
  out += "  " + c.name + (c.host.empty() ? "" : " on " + c.host) + (c.peer_host.empty() ? "" : " -> " + c.peer_host) + "\n";
  if (c.bytes.empty()) {
    out += "    " + c.verdict + "\n";
    return;
  }
  const CurveSummary& s = c.summary;
  out += "    latency " + format_seconds(s.latency_seconds) + " at " + size(static_cast<double>(s.latency_bytes)) +
         "; peak " + rate(s.peak_throughput) + " at " + size(static_cast<double>(s.peak_bytes)) +
         "; half of peak from " + size(static_cast<double>(s.half_peak_bytes)) + "\n";
  if (c.bytes.size() >= 2) {
    out += "    Hockney fit, " + fit_line(c.hockney.whole, c.bytes) + "\n";
    if (c.hockney.segments.size() > 1)
      for (const HockneyFit& segment : c.hockney.segments) out += "      piece " + fit_line(segment, c.bytes) + "\n";
  }
  if (c.link_peak.bytes_per_second > 0)
    out += "    theoretical peak " + rate(c.link_peak.bytes_per_second) + " (" + c.link_peak.how +
           (c.link_peak_given ? "; from --link" : "") + ")\n";
  for (const CurveBreak& b : c.hockney.breaks) out += "    at " + size(b.bytes) + " " + describe_break(b, c) + "\n";
  for (const SwitchCheck& set : c.set_switches) out += "    at " + size(set.set.bytes) + " " + describe_set_switch(set) + "\n";
  for (const CurveBreak& b : c.hockney.withdrawn) out += "    at " + size(b.bytes) + " " + describe_withdrawn(b) + "\n";
  out += "    verdict: " + c.verdict + "\n";
}

void run_text(std::string& out, const RunReport& r) {
  out += r.file + ":" + r.group + "  " + r.label + "\n";
  if (r.status != RunStatus::complete)
    out += "  " + std::string(r.status == RunStatus::failed ? "FAILED" : "INCOMPLETE") +
           (r.status_reason.empty() ? "" : ": " + r.status_reason) + "; what it finished is reported below\n";
  if (!r.command_line.empty()) out += "  command: " + r.command_line + "\n";
  for (const CurveReport& curve : r.curves) curve_text(out, curve);
  for (const std::string& finding : r.findings) out += "  " + finding + "\n";
  for (const ExpectationOutcome& outcome : r.expectations)
    if (!outcome.met) out += "  EXPECTATION NOT MET: " + describe_outcome(outcome) + "\n";
  if (!r.expectations.empty() &&
      std::all_of(r.expectations.begin(), r.expectations.end(), [](const ExpectationOutcome& o) { return o.met; }))
    out += "  every expectation met (" + std::to_string(r.expectations.size()) + " checked)\n";
}

}  // namespace

std::string report_text(const Report& report) {
  std::string out;
  for (const RunReport& run : report.runs) {
    run_text(out, run);
    out += "\n";
  }
  if (!report.findings.empty()) {
    out += "Across runs:\n";
    for (const Finding& finding : report.findings)
      out += "  " + finding.text + " [" + finding.runs.front() + " against " + finding.runs.back() + "]\n";
    out += "\n";
  }
  for (const LoadImpact& load : report.load) {
    out += "Under load: " + load.heading + " [" + load.loaded_run + " against " + load.isolated_run + "]\n";
    for (const std::string& line : load.lines) out += "  " + line + "\n";
    out += "\n";
  }
  if (!report.layers.empty()) {
    out += "Layers of one path (each module against the one under it, between the same ends):\n";
    for (const LayerStep& step : report.layers)
      out += "  " + describe_layer_step(step) + " [" + step.upper_run + " over " + step.lower_run + "]\n";
    out += "\n";
  }
  if (!report.comparisons.empty()) {
    out += "Side by side (ratios against the first file):\n";
    for (const Comparison& c : report.comparisons) {
      out += "  " + c.label + ", " + c.curve + "\n";
      for (const ComparedRun& run : c.runs)
        out += "    " + run.run + ": latency " + format_seconds(run.latency_s) + printf_text(" (x%.2f)", run.latency_ratio) +
               ", peak " + rate(run.peak_B_per_s) + printf_text(" (x%.2f)", run.peak_ratio) + "\n";
    }
  }
  return out;
}

}  // namespace npgpu
