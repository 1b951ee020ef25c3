// The verdicts that take more than one curve: runs that differ in one aspect (concurrent against
// alone, pageable against pinned, staged against direct), the pairs of one run, the flagged links
// of an all-pairs matrix, and the same run in several files.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "npgpu/report.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

// Below this share of the other figure, a difference is worth a sentence of its own.
constexpr double kEven = 0.9;

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", fraction * 100);
  return text;
}

std::string rate(double bytes_per_second) { return format_throughput(bytes_per_second, Units::decimal); }

std::string size(double bytes) { return format_bytes(static_cast<std::uint64_t>(bytes)); }

std::string name_of(const RunData& run) { return run.file + ":" + run.group; }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0 : n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Calls `each` for every two complete runs alike but in `aspect`, where the first has `first`
// there and the second `second`. A run that stopped early is no measure of its path.
void for_each_contrast(const std::vector<RunData>& runs, const std::string& aspect, const std::string& first,
                       const std::string& second, const std::function<void(std::size_t, std::size_t)>& each) {
  for (std::size_t a = 0; a < runs.size(); ++a)
    for (std::size_t b = 0; b < runs.size(); ++b)
      if (run_aspect(runs[a], aspect) == first && run_aspect(runs[b], aspect) == second &&
          run_label(runs[a], aspect) == run_label(runs[b], aspect) && runs[a].status == "complete" &&
          runs[b].status == "complete" && !runs[a].curves.empty() && !runs[b].curves.empty())
        each(a, b);
}

std::string traffic(const RunData& run) {
  static const std::map<std::string, std::string> kWords{
      {"h2d", "host->GPU"}, {"d2h", "GPU->host"}, {"bidir", "host<->GPU"}, {"h2d2h", "host->GPU->host"},
      {"d2d", "GPU memory"}};
  const auto found = kWords.find(run_aspect(run, "direction"));
  return found == kWords.end() ? run.module : found->second;
}

Finding concurrent_against_alone(const RunData& together, const RunReport& together_report, const RunData& alone,
                                 const RunReport& alone_report) {
  double sum = 0;
  std::vector<double> shares;
  bool over_pcie = false;
  for (const CurveReport& t : together_report.curves) {
    sum += t.summary.peak_throughput;
    over_pcie = over_pcie || t.link_peak.how.find("PCIe") != std::string::npos;
    for (const CurveReport& a : alone_report.curves)
      if (a.name == t.name && a.summary.peak_throughput > 0) shares.push_back(t.summary.peak_throughput / a.summary.peak_throughput);
  }
  const double share = median(shares);
  const std::string unit = together.facts.count("gpu") ? "GPU" : "rank";
  const std::string what = traffic(together);
  std::string text;
  if (share < kEven)
    // Each path alone moves more than it gets together, so its own link is not the limit.
    text = std::string(over_pcie ? "the host side, not the PCIe links," : "something the " + unit + "s share") +
           " caps concurrent " + what + " traffic at " + rate(sum) + ": each " + unit + " gets " + percent(share) +
           " of what it gets alone";
  else
    text = "concurrent " + what + " traffic scales: " + std::to_string(together.curves.size()) + " " + unit +
           "s together move " + rate(sum) + ", each " + percent(share) + " of what it gets alone";
  return {"concurrent_vs_alone", {name_of(together), name_of(alone)}, share, text};
}

// The first curves of two runs: peak and smallest-size time, the second against the first.
Finding contrast(const char* kind, const std::string& aspect, const RunData& base, const RunReport& base_report,
                 const RunData& other, const RunReport& other_report, const std::string& other_words,
                 const std::string& base_words, const std::string& why) {
  const CurveSummary& b = base_report.curves.front().summary;
  const CurveSummary& o = other_report.curves.front().summary;
  const double share = b.peak_throughput > 0 ? o.peak_throughput / b.peak_throughput : 0;
  const std::string text = other_words + " reaches " + percent(share) + " of " + base_words + "'s peak for " +
                           run_label(base, aspect) + " (" + rate(o.peak_throughput) + " against " + rate(b.peak_throughput) +
                           ")" + why + "; at " + size(static_cast<double>(o.latency_bytes)) + " a transfer takes " +
                           format_seconds(o.latency_seconds) + " against " + format_seconds(b.latency_seconds);
  return {kind, {name_of(base), name_of(other)}, share, text};
}

}  // namespace

std::vector<Finding> cross_run_findings(const std::vector<RunData>& runs, const std::vector<RunReport>& reports) {
  std::vector<Finding> findings;
  for_each_contrast(runs, "concurrency", "together", "alone", [&](std::size_t t, std::size_t a) {
    findings.push_back(concurrent_against_alone(runs[t], reports[t], runs[a], reports[a]));
  });
  for_each_contrast(runs, "memory", "pinned", "pageable", [&](std::size_t pinned, std::size_t pageable) {
    findings.push_back(contrast("pageable_vs_pinned", "memory", runs[pinned], reports[pinned], runs[pageable], reports[pageable],
                                "pageable host memory", "pinned memory",
                                ": the driver copies it through its own pinned buffers first"));
  });
  for_each_contrast(runs, "path", "direct", "staged", [&](std::size_t direct, std::size_t staged) {
    findings.push_back(contrast("staged_vs_direct", "path", runs[direct], reports[direct], runs[staged], reports[staged],
                                "staging through pinned host buffers", "the direct path",
                                ": every chunk crosses host memory and host MPI on its way"));
  });
  return findings;
}

std::vector<std::string> pair_findings(const RunData& run) {
  std::vector<std::string> findings;
  if (run.aggregate && !run.aggregate->bytes.empty()) {
    const AggregateData& a = *run.aggregate;
    const std::size_t k = static_cast<std::size_t>(std::max_element(a.sum.begin(), a.sum.end()) - a.sum.begin());
    std::vector<double> pairs;
    const CurveData* slowest = nullptr;
    for (const CurveData& curve : run.curves) {
      const auto at = std::find(curve.bytes.begin(), curve.bytes.end(), a.bytes[k]);
      if (at == curve.bytes.end()) continue;
      pairs.push_back(curve.throughput(static_cast<std::size_t>(at - curve.bytes.begin())));
      if (curve.rank == a.slowest_rank[k]) slowest = &curve;
    }
    const double typical = median(pairs), share = typical > 0 ? a.slowest[k] / typical : 0;
    std::string who = "rank " + std::to_string(a.slowest_rank[k]);
    if (slowest != nullptr)
      who += " -> rank " + std::to_string(slowest->peer) + " (" + slowest->host + " -> " + slowest->peer_host + ")";
    if (pairs.size() < 2)  // two ranks: nothing to compare the pair with
      findings.push_back("one pair only: " + who + " moves " + rate(a.sum[k]) + " at " + size(a.bytes[k]));
    else
      findings.push_back(std::string(share >= kEven ? "the pairs are even: " : "") + "of " + std::to_string(pairs.size()) +
                       " pairs at once, the slowest is " + who + " at " + size(a.bytes[k]) + ": " + rate(a.slowest[k]) +
                       ", " + percent(share) + " of the median pair (" + rate(typical) + "); all pairs together move " +
                       rate(a.sum[k]));
  }
  if (run.matrix) {
    const MatrixData& m = *run.matrix;
    const auto who = [&](int rank) {
      const std::size_t r = static_cast<std::size_t>(rank);
      std::string where = r < m.rank_host.size() ? m.rank_host[r] : "";
      if (r < m.rank_gpu.size() && !m.rank_gpu[r].empty()) where += ", " + m.rank_gpu[r];
      return "rank " + std::to_string(rank) + " (" + where + ")";
    };
    for (const FlaggedLink& link : m.flagged) {
      const std::size_t cell = static_cast<std::size_t>(link.from * m.ranks() + link.to);
      const int cls = cell < m.cell_class.size() ? m.cell_class[cell] : -1;
      const std::string class_name = cls >= 0 && static_cast<std::size_t>(cls) < m.classes.size() ? m.classes[cls] : "?";
      findings.push_back("flagged link: " + who(link.from) + " -> " + who(link.to) + ": " + rate(link.throughput) +
                         " at " + size(m.bytes.at(link.size_index)) + ", " + percent(link.throughput / link.class_median) +
                         " of the median of its class '" + class_name + "' (" + rate(link.class_median) + ")");
    }
    if (m.flagged.empty())
      findings.push_back("no link flagged: every measured cell of the " + std::to_string(m.ranks()) + " x " +
                         std::to_string(m.ranks()) + " matrix is within " + percent(m.flag_below) +
                         " of the median of its class");
  }
  return findings;
}

std::vector<Comparison> compare_files(const std::vector<RunData>& runs, const std::vector<RunReport>& reports) {
  std::set<std::string> files;
  for (const RunData& run : runs) files.insert(run.file);
  if (files.size() < 2) return {};
  std::vector<Comparison> comparisons;
  std::map<std::pair<std::string, std::string>, std::size_t> index;  // (label, curve) -> comparison
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (const CurveReport& curve : reports[r].curves) {
      if (runs[r].status != "complete") continue;  // a partial curve compares nothing
      const auto key = std::make_pair(reports[r].label, curve.name);
      if (!index.count(key)) {
        index[key] = comparisons.size();
        comparisons.push_back({key.first, key.second, {}});
      }
      Comparison& c = comparisons[index[key]];
      ComparedRun entry{name_of(runs[r]), curve.summary.latency_seconds, curve.summary.peak_throughput, 1, 1};
      if (!c.runs.empty()) {
        entry.latency_ratio = entry.latency_s / c.runs.front().latency_s;
        entry.peak_ratio = entry.peak_B_per_s / c.runs.front().peak_B_per_s;
      }
      c.runs.push_back(entry);
    }
  // Only what appears in more than one file compares anything.
  std::erase_if(comparisons, [&](const Comparison& c) {
    std::set<std::string> in;
    for (const ComparedRun& run : c.runs) in.insert(run.run.substr(0, run.run.rfind(':')));
    return in.size() < 2;
  });
  return comparisons;
}

}  // namespace npgpu
