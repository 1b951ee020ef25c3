// The report as JSON for scripts; docs/report-json.md describes every field.
#include <nlohmann/json.hpp>

#include <cmath>

#include "report/efficiency.hpp"
#include "report/report.hpp"

namespace npgpu {
namespace {

using nlohmann::json;

// JSON has no NaN or infinity: an unknown number is null.
json number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json fit_json(const HockneyFit& fit, const std::vector<double>& bytes) {
  return {{"from_bytes", number(bytes.at(fit.first))},
          {"to_bytes", number(bytes.at(fit.last))},
          {"alpha_s", number(fit.alpha_s)},
          {"beta_B_per_s", fit.beta_B_per_s > 0 ? number(fit.beta_B_per_s) : json(nullptr)},
          {"n_half_bytes", fit.beta_B_per_s > 0 ? number(fit.half_bytes()) : json(nullptr)},
          {"rms_relative_residual", number(fit.rms_relative_residual)},
          {"worst_relative_residual", number(fit.worst_relative_residual)},
          {"typical_relative_residual", number(fit.typical_relative_residual)},
          {"poor_fit", is_poor(fit)}};
}

// A break and its evidence; measured_again is null where its sizes were not measured again.
json break_json(const CurveBreak& b) {
  const auto beta = [](double value) { return value > 0 ? number(value) : json(nullptr); };
  json again = nullptr;
  if (b.step_again > 0)
    again = {{"bytes", number(b.bytes_again)},
             {"step_swept", number(b.step_swept)},
             {"step_again", number(b.step_again)},
             {"noise_again", number(b.noise_again)},
             {"weakest_round", number(b.weakest_again)},
             {"across_setting", b.setting_measured_again}};
  return {{"bytes", number(b.bytes)},
          {"told_by", b.by_setting ? "setting" : "sweep"},
          {"kind", break_kind_name(b.kind)},
          {"jump", number(b.jump)},
          {"fastest_before_s", number(b.seconds_before)},
          {"fastest_after_s", number(b.seconds_after)},
          {"beta_before_B_per_s", beta(b.beta_before_B_per_s)},
          {"beta_after_B_per_s", beta(b.beta_after_B_per_s)},
          {"noise", number(b.noise)},
          {"measured_again", again}};
}

json curve_json(const CurveReport& c) {
  json curve{{"name", c.name},
             {"host", c.host},
             {"peer_host", c.peer_host},
             {"latency_s", number(c.summary.latency_seconds)},
             {"latency_bytes", c.summary.latency_bytes},
             {"peak_B_per_s", number(c.summary.peak_throughput)},
             {"peak_bytes", c.summary.peak_bytes},
             {"half_peak_bytes", c.summary.half_peak_bytes},
             {"hockney", nullptr},
             {"segments", json::array()},
             {"breaks", json::array()},
             {"withdrawn_breaks", json::array()},
             {"poor_fit", nullptr},
             {"link_peak", nullptr},
             {"peak_fraction", nullptr},
             {"grade", nullptr},
             {"verdict", c.verdict}};
  if (c.bytes.size() >= 2) {
    curve["hockney"] = fit_json(c.hockney.whole, c.bytes);
    for (const HockneyFit& segment : c.hockney.segments) curve["segments"].push_back(fit_json(segment, c.bytes));
    curve["poor_fit"] = is_poor(*worst_segment(c.hockney));
  }
  for (const CurveBreak& b : c.hockney.breaks) {
    json cut = break_json(b);
    cut["meaning"] = break_meaning(b, c);
    const SwitchCheck* set = switch_of(b, c.set_switches);
    cut["set_switch"] = set != nullptr ? json(set->set.setting) : json();
    curve["breaks"].push_back(std::move(cut));
  }
  for (const CurveBreak& b : c.hockney.withdrawn) curve["withdrawn_breaks"].push_back(break_json(b));
  curve["set_switches"] = json::array();
  for (const SwitchCheck& set : c.set_switches)
    curve["set_switches"].push_back({{"bytes", set.set.bytes},
                                     {"setting", set.set.setting},
                                     {"change", set.set.change},
                                     {"step", set.step > 0 ? number(set.step) : json()},
                                     {"break_bytes", set.break_bytes > 0 ? json(set.break_bytes) : json()}});
  if (c.link_peak.bytes_per_second > 0) {
    curve["link_peak"] = {{"B_per_s", c.link_peak.bytes_per_second},
                          {"how", c.link_peak.how},
                          {"from", c.link_peak_given ? "--link" : "record"}};
    curve["peak_fraction"] = number(c.peak_fraction);
    curve["grade"] = efficiency_grade(c.peak_fraction);
  }
  return curve;
}

json expectation_json(const ExpectationOutcome& o) {
  const bool bandwidth = o.expectation.kind == ExpectationKind::bandwidth;
  return {{"option", o.expectation.given},
          {"kind", bandwidth ? "bandwidth" : "latency"},
          {"bytes", o.expectation.bytes},
          {"expected", number(o.expectation.value)},
          {"measured", number(o.measured)},
          {"units", bandwidth ? "B/s" : "s"},
          {"curve", o.curve},
          {"met", o.met}};
}

json run_json(const RunReport& r) {
  json run{{"file", r.file},         {"run", r.group},
           {"label", r.label},       {"status", status_name(r.status)},
           {"status_reason", r.status_reason}, {"command_line", r.command_line},
           {"started_utc", r.started_utc},     {"curves", json::array()},
           {"findings", r.findings},           {"expectations", json::array()},
           {"expectations_met", true}};
  for (const CurveReport& curve : r.curves) run["curves"].push_back(curve_json(curve));
  run["host_groups"] = json::array();
  for (const auto& [bytes, split] : r.host_splits)
    run["host_groups"].push_back({{"bytes", bytes},
                                  {"groups", split.groups},
                                  {"within_B_per_s", number(split.within)},
                                  {"across_B_per_s", number(split.across)},
                                  {"across_at_once_B_per_s", split.across_at_once > 0 ? number(split.across_at_once) : json()}});
  for (const ExpectationOutcome& outcome : r.expectations) {
    run["expectations"].push_back(expectation_json(outcome));
    if (!outcome.met) run["expectations_met"] = false;
  }
  return run;
}

}  // namespace

nlohmann::json report_json(const Report& report) {
  json out{{"schema", kReportSchema}, {"runs", json::array()}, {"findings", json::array()}, {"comparisons", json::array()}};
  for (const RunReport& run : report.runs) out["runs"].push_back(run_json(run));
  for (const Finding& f : report.findings)
    out["findings"].push_back({{"kind", f.kind}, {"runs", f.runs}, {"ratio", number(f.ratio)}, {"text", f.text}});
  for (const Comparison& c : report.comparisons) {
    json entries = json::array();
    for (const ComparedRun& run : c.runs)
      entries.push_back({{"run", run.run},
                         {"latency_s", number(run.latency_s)},
                         {"peak_B_per_s", number(run.peak_B_per_s)},
                         {"latency_ratio", number(run.latency_ratio)},
                         {"peak_ratio", number(run.peak_ratio)}});
    out["comparisons"].push_back({{"label", c.label}, {"curve", c.curve}, {"runs", entries}});
  }
  out["layers"] = json::array();
  for (const LayerStep& s : report.layers)
    out["layers"].push_back({{"runs", {s.upper_run, s.lower_run}},
                             {"modules", {s.upper, s.lower}},
                             {"memory", s.gpu_memory ? "GPU" : "host"},
                             {"ends", s.ends},
                             {"pattern", s.pattern},
                             {"latency_bytes", number(s.latency_bytes)},
                             {"latency_s", {number(s.upper_latency_s), number(s.lower_latency_s)}},
                             {"added_latency_s", number(s.upper_latency_s - s.lower_latency_s)},
                             {"peak_B_per_s", {number(s.upper_peak_B_per_s), number(s.lower_peak_B_per_s)}},
                             {"share", number(s.share)},
                             {"fastest_share", number(s.fastest_share)},
                             {"far_below", s.far_below},
                             {"cause", s.far_below ? json(s.cause) : json()},
                             {"text", describe_layer_step(s)}});
  out["load"] = json::array();
  for (const LoadImpact& l : report.load) {
    json victims = json::array();
    for (const VictimImpact& v : l.victims) {
      json sizes = json::array();
      for (const ImpactAtSize& s : v.sizes)
        sizes.push_back({{"bytes", s.bytes},
                         {"isolated_s", number(s.isolated_s)},
                         {"loaded_s", number(s.loaded_s)},
                         {"impact", number(s.impact)},
                         {"impact_p99", number(s.impact_p99)},
                         {"beyond_noise", s.beyond_noise}});
      victims.push_back({{"path", v.path}, {"ranks", v.ranks}, {"hosts", v.hosts}, {"shares", v.shares}, {"sizes", sizes}});
    }
    out["load"].push_back({{"isolated_run", l.isolated_run},
                           {"loaded_run", l.loaded_run},
                           {"pattern", l.pattern},
                           {"load_ranks", l.load_ranks},
                           {"load_module", l.load_module},
                           {"load_bytes", l.load_bytes},
                           {"load_rate_B_per_s", number(l.load_rate)},
                           {"victims", victims},
                           {"heading", l.heading},
                           {"lines", l.lines}});
  }
  return out;
}

}  // namespace npgpu
