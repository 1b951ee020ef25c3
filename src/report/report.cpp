#include "report/report.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

#include "report/break_checks.hpp"
#include "report/change_points.hpp"
#include "report/efficiency.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

// A switch whose sizes past it stay within this factor of the line before it changes little.
constexpr double kAlike = 1.1;

std::string up_to_parenthesis(const std::string& text) { return text.substr(0, text.find(" (")); }

std::string first_word(const std::string& text) { return text.substr(0, text.find_first_of(" :(")); }

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, fraction < 0.1 ? "%.1f%%" : "%.0f%%", fraction * 100);
  return text;
}

std::string rate(double bytes_per_second) {
  return bytes_per_second > 0 ? format_throughput(bytes_per_second, Units::decimal) : "no bandwidth term";
}

// The fit's alpha, beta and n1/2 are not to be quoted where it misses a typical size by that much.
std::string poor_fit_sentence(const HockneyFit& worst, const CurveReport& c) {
  const std::string where = c.hockney.segments.size() == 1 ? ""
                            : " from " + format_bytes(static_cast<std::uint64_t>(c.bytes[worst.first])) + " to " +
                                  format_bytes(static_cast<std::uint64_t>(c.bytes[worst.last]));
  return "poor fit: it misses by " + percent(worst.typical_relative_residual) + where +
         " of a typical size, the latency/bandwidth model does not describe this curve: its alpha, beta and n1/2 mean "
         "nothing here";
}

std::string curve_verdict(const CurveReport& c) {
  std::string verdict;
  if (c.link_peak.bytes_per_second > 0) {
    verdict = percent(c.peak_fraction) + " of the theoretical " +
              format_throughput(c.link_peak.bytes_per_second, Units::decimal) + ", " + efficiency_verdict(c.peak_fraction);
    if (const std::string grade = efficiency_grade(c.peak_fraction); grade == "fair" || grade == "poor")
      verdict += "; on this path the cause can be " + c.words.shortfall;
  } else
    verdict = "no theoretical peak for this path" + (c.link_peak.how.empty() ? "" : " (" + c.link_peak.how + ")") +
              "; --link NAME judges it against a known link";
  if (const HockneyFit* worst = worst_segment(c.hockney); worst != nullptr && is_poor(*worst))
    verdict += "; " + poor_fit_sentence(*worst, c);
  for (std::size_t k = 0; k < c.hockney.breaks.size(); ++k)
    verdict += std::string(k == 0 ? "; the curve changes regime at " : k + 1 == c.hockney.breaks.size() ? " and " : ", ") +
               format_bytes(static_cast<std::uint64_t>(c.hockney.breaks[k].bytes));
  return verdict;
}

CurveReport curve_report(const CurveData& curve, const std::optional<LinkPeak>& link, const PathWords& words) {
  CurveReport report;
  report.words = words;
  report.name = curve.name;
  report.host = curve.host;
  report.peer_host = curve.peer_host;
  std::vector<double> throughput;
  for (std::size_t i = 0; i < curve.bytes.size(); ++i) throughput.push_back(curve.throughput(i));
  report.summary = summarize_points(curve.bytes, curve.seconds, throughput);
  report.bytes = curve.bytes;
  const std::vector<SettingSides> settings = setting_sides(curve.bytes, words.set_switches, curve.within_one_host());
  report.hockney =
      analyse_hockney(curve.bytes_per_transfer, curve.seconds, curve.trial_seconds, curve.rechecked, settings);
  for (auto* breaks : {&report.hockney.breaks, &report.hockney.withdrawn})
    for (CurveBreak& b : *breaks) {
      b.bytes = curve.bytes[b.index];
      b.bytes_again = curve.bytes[b.index_again];
    }
  report.set_switches = check_set_switches(curve.bytes, fastest_trials(curve), report.hockney.breaks,
                                           words.set_switches, curve.within_one_host());
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

// "; measured again in turn with the sizes before it, x1.98 at 16 KiB (the sweep's x2.05)", and for
// a break told though its step did not repeat, why it stands.
std::string measured_again(const CurveBreak& b) {
  if (!(b.step_again > 0)) return "";
  char steps[64];
  std::snprintf(steps, sizeof steps, "x%.2f at %s (the sweep's x%.2f)", b.step_again,
                format_bytes(static_cast<std::uint64_t>(b.bytes_again)).c_str(), b.step_swept);
  std::string stands;
  if (!repeated(b) && b.predicted && !b.setting_measured_again)
    stands = ", which does not withdraw it: the path is set to switch near here, and the sizes across that setting "
             "were not measured again";
  else if (!repeated(b) && !withdrawn(b))
    stands = b.kind == BreakKind::slope ? ", which cannot settle a change of rate this close to it"
                                        : ", too noisy to tell: its rounds spread by " +
                                              percent(std::exp(b.noise_again) - 1);
  const char* with = b.setting_measured_again ? "with the sizes before it and those across the size the path is set "
                                                "to switch at, "
                                              : "with the sizes before it, ";
  return std::string("; measured again in turn ") + with + steps + stands;
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
    return (per_rank || run.pairing == PairingMode::halves) && (run.curves.size() > 1 || run.concurrency == "alone") ? run.concurrency
                                                                                                          : "";
  }
  if (aspect == "pairs") return run.pairs.empty() ? "" : "pairs " + run.pairs;
  if (aspect == "load") return run.load;
  return {};
}

std::string run_label(const RunData& run, const std::string& leave_out) {
  std::string label = run.module + " " + run.pattern;
  for (const char* aspect : {"direction", "memory", "messages", "path", "concurrency", "pairs", "load"})
    if (const std::string value = run_aspect(run, aspect); !value.empty() && leave_out != aspect) label += ", " + value;
  return label;
}

std::string break_meaning(const CurveBreak& b, const CurveReport& curve) {
  if (const SwitchCheck* set = switch_of(b, curve.set_switches))
    return "probably the switch this path is set to make at " + format_bytes(static_cast<std::uint64_t>(set->set.bytes)) +
           " (" + set->set.setting + "): " + set->set.change;
  switch (b.kind) {
    case BreakKind::jump: return curve.words.jump;
    case BreakKind::drop: return curve.words.drop;
    case BreakKind::slope: break;
  }
  return curve.words.slope;
}

// What the time does there, the evidence (the fits of the fastest trials on both sides at that size,
// and the noise it stands above), and what that can mean on this path.
std::string describe_break(const CurveBreak& b, const CurveReport& curve) {
  char factor[32];
  std::snprintf(factor, sizeof factor, "x%.2f", b.jump);
  std::string what;
  switch (b.kind) {
    case BreakKind::jump: what = "the time jumps " + std::string(factor) + " above what the smaller sizes predict"; break;
    case BreakKind::drop: what = "the time falls to " + std::string(factor) + " of what the smaller sizes predict"; break;
    case BreakKind::slope:
      what = "the time grows at another rate, Hockney's beta from " + rate(b.beta_before_B_per_s) + " to " +
             rate(b.beta_after_B_per_s);
      break;
  }
  if (b.by_setting) {
    char evidence[160];
    std::snprintf(evidence, sizeof evidence, "at %s, every round by x%.2f at least; the sweep's x%.2f, where its pieces did not part",
                  format_bytes(static_cast<std::uint64_t>(b.bytes_again)).c_str(), b.weakest_again, b.step_swept);
    return what + " when the sizes across the size the path is set to switch at were measured again in turn (" + evidence +
           "); on this path that can mean: " + break_meaning(b, curve);
  }
  return what + " (fastest trials: " + format_seconds(b.seconds_before) + " by the fit below, " +
         format_seconds(b.seconds_after) + " by the fit from here; the curve's noise " + percent(b.noise) +
         measured_again(b) + "); on this path that can mean: " + break_meaning(b, curve);
}

std::string describe_set_switch(const SwitchCheck& check) {
  std::string said = "the path is set to switch here (" + check.set.setting + "): " + check.set.change;
  if (check.break_bytes > 0)
    return said + "; the break told at " + format_bytes(static_cast<std::uint64_t>(check.break_bytes)) +
           " is probably this switch";
  if (!(check.step > 0)) return said + "; the curve has too few sizes beside it to show a step";
  char step[160];
  std::snprintf(step, sizeof step,
                "x%.2f off the line through those below it (fastest trials; a break is told where the curve parts by x%.2f)",
                check.step, kLeastTold);
  const bool alike = std::fabs(std::log(check.step)) < std::log(kAlike);
  return said + "; no break told: the sizes past it lie " + step +
         (alike ? ", so the two ways of moving a message cost about alike here" : "");
}

std::string describe_withdrawn(const CurveBreak& b) {
  return "the sweep's pieces part here, but not when measured again" + measured_again(b) +
         ": the machine changed between these sizes while the sweep went by, not the path; not told as a break";
}

Report make_report(const std::vector<RunData>& runs, const std::optional<LinkPeak>& link, PathWordsOf words) {
  Report report;
  std::vector<PathWords> words_of_runs;
  for (const RunData& run : runs) {
    RunReport r;
    r.file = run.file;
    r.group = run.group;
    r.label = run_label(run);
    r.status = run.status;
    r.status_reason = run.status_reason;
    r.command_line = run.command_line;
    r.started_utc = run.started_utc;
    const PathWords path = words_of_runs.emplace_back(words(run.module, run.facts));
    for (const CurveData& curve : run.curves) r.curves.push_back(curve_report(curve, link, path));
    r.findings = pair_findings(run);
    r.host_splits = host_splits(run);
    r.expectations = run.expectations;
    report.runs.push_back(std::move(r));
  }
  report.findings = cross_run_findings(runs, report.runs);
  report.layers = layer_steps(runs, words_of_runs);
  for (const LayerStep& step : report.layers)
    if (step.far_below)
      report.findings.push_back({"layer_far_below", {step.upper_run, step.lower_run}, step.share, describe_far_below(step)});
  report.comparisons = compare_files(runs, report.runs);
  report.load = load_impacts(runs);
  return report;
}

}  // namespace npgpu
