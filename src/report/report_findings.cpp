// The verdicts that take more than one curve: runs that differ in one aspect (concurrent against
// alone, pageable against pinned, staged against direct), the pairs of one run, the flagged links
// of an all-pairs matrix, and the same run in several files.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "report/host_groups.hpp"
#include "report/load_impact.hpp"
#include "npgpu/pairing.hpp"
#include "report/report.hpp"
#include "npgpu/sizes.hpp"
#include "results/statistics.hpp"

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

// Calls `each` for every two complete runs alike but in `aspect`, where the first has `first`
// there and the second `second`. A run that stopped early is no measure of its path.
void for_each_contrast(const std::vector<RunData>& runs, const std::string& aspect, const std::string& first,
                       const std::string& second, const std::function<void(std::size_t, std::size_t)>& each) {
  for (std::size_t a = 0; a < runs.size(); ++a)
    for (std::size_t b = 0; b < runs.size(); ++b)
      if (run_aspect(runs[a], aspect) == first && run_aspect(runs[b], aspect) == second &&
          run_label(runs[a], aspect) == run_label(runs[b], aspect) && runs[a].status == RunStatus::complete &&
          runs[b].status == RunStatus::complete && !runs[a].curves.empty() && !runs[b].curves.empty())
        each(a, b);
}

std::string traffic(const RunData& run) {
  static const std::map<std::string, std::string> kWords{
      {"h2d", "host->GPU"}, {"d2h", "GPU->host"}, {"bidir", "host<->GPU"}, {"h2d2h", "host->GPU->host"},
      {"d2d", "GPU memory"}};
  const auto found = kWords.find(run_aspect(run, "direction"));
  return found == kWords.end() ? run.module : found->second;
}

// The deepest bridge every PCIe path ("pci0000:17 > 0000:17:01.0 > ...") goes through, or "".
std::string common_bridge(const std::vector<std::string>& paths) {
  std::vector<std::vector<std::string>> split;
  for (const std::string& path : paths) {
    if (path.empty()) return {};
    std::vector<std::string>& parts = split.emplace_back();
    for (std::size_t at = 0; at != std::string::npos;) {
      const std::size_t next = path.find(" > ", at);
      parts.push_back(path.substr(at, next == std::string::npos ? next : next - at));
      at = next == std::string::npos ? next : next + 3;
    }
  }
  std::string common;
  for (std::size_t depth = 0; !split.empty() && depth < split.front().size(); ++depth)
    for (const std::vector<std::string>& parts : split) {
      if (depth >= parts.size() || parts[depth] != split.front()[depth]) return common;
      if (&parts == &split.back()) common = parts[depth];
    }
  return common;
}

// What every path of a concurrent run goes through, from where each rank measured: one GPU, a
// PCIe bridge above all its GPUs, one NUMA node, one host, or the network between hosts that no
// two pairs share. "" where the record does not say: the facts are missing, or nothing is common
// to all of the paths.
std::string shared_by(const RunData& run) {
  const auto fact = [&](int rank, const char* name) -> std::string {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= run.rank_facts.size()) return {};
    const auto found = run.rank_facts[r].find(name);
    return found == run.rank_facts[r].end() || found->second == "unknown" || found->second == "-1" ? "" : found->second;
  };
  if (run.curves.front().peer >= 0) {
    std::map<std::string, std::size_t> pairs_on;
    for (const CurveData& curve : run.curves) {
      ++pairs_on[curve.host];
      if (curve.peer_host != curve.host) ++pairs_on[curve.peer_host];
    }
    std::size_t most = 0;
    for (const auto& [host, pairs] : pairs_on) {
      if (pairs == run.curves.size()) return "host " + host + " (every pair runs on it: its memory, or its network link)";
      most = std::max(most, pairs);
    }
    if (most == 1) return "the network between their hosts: no two pairs share a host, so what they share lies on the way (a switch, a trunk)";
    return {};
  }
  std::set<std::string> gpus, nodes;
  std::vector<std::string> paths;
  for (const CurveData& curve : run.curves) {
    gpus.insert(fact(curve.rank, "gpu_pci_bus_id"));
    nodes.insert(fact(curve.rank, "gpu_numa_node"));
    paths.push_back(fact(curve.rank, "gpu_pcie_upstream"));
  }
  if (gpus.size() == 1 && !gpus.begin()->empty())
    return "GPU " + fact(run.curves.front().rank, "gpu") + " (" + *gpus.begin() + ") and its one PCIe link: every rank copies to it";
  const std::string bridge = common_bridge(paths);
  // A root complex ("pci0000:17") has no link above it: GPUs on root ports of their own (or, in a
  // virtual machine, on its one root bus) share no PCIe link, only the host's side.
  const bool root_complex = bridge.rfind("pci", 0) == 0;
  if (!bridge.empty() && !root_complex)
    return "the PCIe bridge " + bridge + " above all of them (a switch or root port: its upstream link)";
  const std::string no_link = root_complex ? "; no PCIe link is common to them" : "";
  if (nodes.size() == 1 && !nodes.begin()->empty())
    return "NUMA node " + *nodes.begin() + " (the host memory and PCIe root complex" + (root_complex ? " " + bridge : "") +
           " their GPUs hang off" + no_link + ")";
  if (root_complex) return "the PCIe root complex " + bridge + " (the host's side" + no_link + ")";
  return {};
}

// The cells of an all-pairs matrix measured at once, step by step; none where the run sampled its
// partners (the draw is not rebuilt here).
std::vector<std::vector<std::size_t>> matrix_steps(const RunData& run, int ranks) {
  if (run.pairing != PairingMode::all || run.sampled || ranks < 2) return {};
  return all_pairs_steps(ranks);
}

// What paths measured at once moved together: as many times the slowest's rate as there are of
// them. Each moves the same bytes, so the last to finish bounds them all; their rates summed
// overstate it where some finished first and then ran faster (a tapered trunk: 13.6% over).
double moved_together(const std::vector<double>& rates) {
  return rates.empty() ? 0 : static_cast<double>(rates.size()) * *std::min_element(rates.begin(), rates.end());
}

// Together against alone: each path's share of what it gets alone (their median), and what they
// moved together (moved_together).
std::string sharing_text(const RunData& together, double share, double sum) {
  const bool pairs = together.curves.front().peer >= 0;
  // Ranks on GPUs of their own are "GPUs"; ranks that share one (--device 0) stay ranks.
  std::set<std::string> gpus;
  for (const auto& facts : together.rank_facts)
    if (const auto bus = facts.find("gpu_pci_bus_id"); bus != facts.end()) gpus.insert(bus->second);
  const bool own_gpus = together.facts.count("gpu") && gpus.size() != 1;
  const std::string unit = pairs ? "pair" : own_gpus ? "GPU" : "rank";
  const std::string all = std::to_string(together.curves.size()) + " " + unit + "s";
  std::string text;
  if (share >= kEven) {
    text = "concurrent " + traffic(together) + " traffic scales: " + all + " together move " + rate(sum) + ", each " +
           percent(share) + " of what it gets alone";
  } else if (const std::string shared = shared_by(together); !shared.empty()) {
    text = "together each " + unit + " gets " + percent(share) + " of what it gets alone: the " + all + " share " + shared +
           ", which caps their sum at " + rate(sum);
  } else {
    text = "together each " + unit + " gets " + percent(share) + " of what it gets alone: something the " + all +
           " share caps their sum at " + rate(sum) + ", and the record does not say what (no GPU, PCIe bridge, NUMA node " +
           "or host is common to all of them); next: measure them two at a time to find which share it";
  }
  return text;
}

Finding concurrent_against_alone(const RunData& together, const RunReport& together_report, const RunData& alone,
                                 const RunReport& alone_report) {
  std::vector<double> rates, shares;
  for (const CurveReport& t : together_report.curves) {
    rates.push_back(t.summary.peak_throughput);
    for (const CurveReport& a : alone_report.curves)
      if (a.name == t.name && a.summary.peak_throughput > 0) shares.push_back(t.summary.peak_throughput / a.summary.peak_throughput);
  }
  const double share = median_of(shares);
  return {"concurrent_vs_alone", {name_of(together), name_of(alone)}, share,
          sharing_text(together, share, moved_together(rates))};
}

std::string host_list(const std::vector<std::string>& hosts) {
  std::string text;
  for (const std::string& host : hosts) text += (text.empty() ? "{" : ", ") + host;
  return text + "}";
}

// What measuring the halves' pairs one at a time would cost: each pair alone about as long as this
// run took them together, in turn.
std::string alone_run_cost(const RunData& halves) {
  double longest = 0;
  for (const CurveData& curve : halves.curves)
    longest = std::max(longest, std::accumulate(curve.wall_seconds.begin(), curve.wall_seconds.end(), 0.0));
  const std::string pairs = std::to_string(halves.curves.size()) + " pairs one after another";
  return longest > 0 ? "about " + format_seconds(static_cast<double>(halves.curves.size()) * longest) + ": the " + pairs +
                           ", each about as long as this run's " + format_seconds(longest)
                     : "the " + pairs;
}

// A --pairs halves run with no run of its pairs alone, against an all-pairs run of the same ranks.
// The matrix measured its cells in crowds too, and its step rank -> rank + N/2 is the halves run
// itself: a pair's own cell is as crowded as the run it would judge. What a pair gets alone is the
// fastest cell from its sender's group of hosts to its receiver's (the hosts' split) that crossed
// with no other cell the same way in its step. Without a split, or without such a cell, the matrix
// cannot tell, and the finding names the run that would, with its cost.
std::optional<Finding> halves_against_matrix(const RunData& halves, const RunData& all) {
  const MatrixData& m = *all.matrix;
  const int n = m.ranks();
  if (n != 2 * static_cast<int>(halves.curves.size()) || halves.module != all.module) return std::nullopt;
  for (const char* aspect : {"direction", "memory", "messages", "path"})  // host memory's matrix tells nothing of GPU memory's pairs
    if (run_aspect(halves, aspect) != run_aspect(all, aspect)) return std::nullopt;
  std::optional<std::size_t> index;  // the largest throughput matrix the pairs' curves measured too
  for (std::size_t i = 0; i < m.bytes.size() && i < m.patterns.size(); ++i)
    if (m.patterns[i] == Pattern::stream && std::count(halves.curves.front().bytes.begin(), halves.curves.front().bytes.end(), m.bytes[i]))
      index = i;
  if (!index) return std::nullopt;
  const std::optional<HostSplit> split = split_hosts(m, *index, matrix_steps(all, n));
  std::vector<std::size_t> group(static_cast<std::size_t>(n), std::string::npos);  // by rank; npos in none
  for (std::size_t r = 0; r < group.size(); ++r)
    for (std::size_t g = 0; split && g < split->groups.size(); ++g)
      if (std::count(split->groups[g].begin(), split->groups[g].end(), m.rank_host[r])) group[r] = g;
  const auto group_of = [&](int rank) { return group[static_cast<std::size_t>(rank)]; };
  const double* cells = m.throughput.data() + *index * static_cast<std::size_t>(n * n);
  std::vector<double> rates, shares;
  std::set<std::pair<std::size_t, std::size_t>> ways;  // (sender's group, receiver's group) of the pairs
  for (const CurveData& curve : halves.curves) {
    if (curve.peer < 0 || curve.peer >= n || m.rank_host[static_cast<std::size_t>(curve.rank)] != curve.host ||
        m.rank_host[static_cast<std::size_t>(curve.peer)] != curve.peer_host)
      return std::nullopt;
    const auto at = std::find(curve.bytes.begin(), curve.bytes.end(), m.bytes[*index]);
    const double pair_rate = curve.throughput(static_cast<std::size_t>(at - curve.bytes.begin()));
    rates.push_back(pair_rate);
    const std::size_t from_group = group_of(curve.rank), to_group = group_of(curve.peer);
    double alone = 0;
    for (int from = 0; from < n && from_group != std::string::npos && to_group != std::string::npos; ++from)
      for (int to = 0; to < n; ++to) {
        const auto cell = static_cast<std::size_t>(from * n + to);
        const bool crossed_alone = split->crowd[cell] == 0 || split->crowd[cell] == 1;  // -1: not known
        if (from != to && group_of(from) == from_group && group_of(to) == to_group && crossed_alone)
          alone = std::max(alone, cells[cell]);
      }
    if (alone > 0) shares.push_back(pair_rate / alone);
    ways.insert({from_group, to_group});
  }
  const std::vector<std::string> runs{name_of(halves), name_of(all)};
  const double sum = moved_together(rates);
  const std::string together = std::to_string(halves.curves.size()) + " pairs together move " + rate(sum) + " at " +
                               size(m.bytes[*index]);
  if (shares.size() < halves.curves.size()) {
    const std::string why = split ? "none of its cells between the same groups of hosts crossed alone"
                                  : "it names no groups of hosts whose cells crossed alone";
    return Finding{"concurrent_alone_unknown", runs, std::nan(""),
                   together + "; what each gets alone the all-pairs run cannot tell: its step rank i -> i + N/2 is as " +
                       "crowded as this run, and " + why + "; --pairs halves --concurrency alone measures it (" +
                       alone_run_cost(halves) + ")"};
  }
  std::string stand_in = "the fastest all-pairs cells between the same groups that crossed alone stand in for the pairs alone";
  if (ways.size() == 1 && ways.begin()->first != ways.begin()->second && split->across_at_once > 0)
    stand_in += "; the pairs cross from " + host_list(split->groups[ways.begin()->first]) + " to " +
                host_list(split->groups[ways.begin()->second]) + ", where the all-pairs cells crossing at once moved " +
                rate(split->across_at_once) + " together: a link between the groups";
  const double share = median_of(shares);
  return Finding{"concurrent_vs_alone", runs, share,
                 sharing_text(halves, share, sum) + " (at " + size(m.bytes[*index]) + "; " + stand_in + ")"};
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
  std::set<std::size_t> compared;
  for_each_contrast(runs, "concurrency", "together", "alone", [&](std::size_t t, std::size_t a) {
    findings.push_back(concurrent_against_alone(runs[t], reports[t], runs[a], reports[a]));
    compared.insert(t);
  });
  for (std::size_t h = 0; h < runs.size(); ++h) {
    if (compared.count(h) || runs[h].pairing != PairingMode::halves || runs[h].concurrency != "together" ||
        runs[h].status != RunStatus::complete || runs[h].curves.empty())
      continue;
    // One answer per halves run: the first matrix that tells what its pairs get alone, else the first that cannot.
    std::optional<Finding> answer;
    for (std::size_t a = 0; a < runs.size() && !(answer && answer->kind == "concurrent_vs_alone"); ++a)
      if (runs[a].matrix && runs[a].status == RunStatus::complete)
        if (std::optional<Finding> finding = halves_against_matrix(runs[h], runs[a]);
            finding && (!answer || finding->kind == "concurrent_vs_alone"))
          answer = finding;
    if (answer) findings.push_back(*answer);
  }
  for (const auto& [isolated, loaded] : load_twins(runs))
    if (!runs[isolated].curves.empty() && !runs[loaded].curves.empty())
      findings.push_back(contrast("under_load", "load", runs[isolated], reports[isolated], runs[loaded], reports[loaded],
                                  "the path under the load", "the same path alone", ""));
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


// The hosts' split at each throughput matrix of an all-pairs run that has one.
std::vector<MatrixSplit> host_splits(const RunData& run) {
  std::vector<MatrixSplit> splits;
  if (!run.matrix) return splits;
  const MatrixData& m = *run.matrix;
  const std::vector<std::vector<std::size_t>> steps = matrix_steps(run, m.ranks());
  for (std::size_t index = 0; index < m.bytes.size() && index < m.patterns.size(); ++index)
    if (m.patterns[index] == Pattern::stream)
      if (std::optional<HostSplit> split = split_hosts(m, index, steps)) splits.push_back({m.bytes[index], std::move(*split)});
  return splits;
}

namespace {

// "the hosts split into {a, b} and {c, d}: across ..., within ...", at each throughput matrix;
// `flagged` cells between the groups are counted there, not listed.
void add_host_splits(const RunData& run, std::vector<std::string>& findings, std::size_t flagged) {
  for (const auto& [bytes, split] : host_splits(run)) {
    std::string groups;
    for (std::size_t g = 0; g < split.groups.size(); ++g)
      groups += std::string(g == 0 ? "" : g + 1 == split.groups.size() ? " and " : ", ") + host_list(split.groups[g]);
    std::string text = "the hosts split into " + groups + " at " + size(bytes) + ": across " + rate(split.across) +
                       ", within " + rate(split.within) + " (median cells" +
                       (flagged > 0 ? "; the " + std::to_string(flagged) + " flagged links all cross between the groups" : "") + ")";
    if (split.across_at_once > 0)
      text += "; the cells across, measured at once, moved " + rate(split.across_at_once) +
              " together where the most crossed one way: a link between the groups (a trunk, an uplink) caps them there";
    findings.push_back(text + "; next: --pairs halves with and without --concurrency alone measures that cap directly");
  }
}

}  // namespace

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
    const double typical = median_of(pairs), share = typical > 0 ? a.slowest[k] / typical : 0;
    std::string who = "rank " + std::to_string(a.slowest_rank[k]);
    if (slowest != nullptr)
      who += " -> rank " + std::to_string(slowest->peer) + " (" + slowest->host + " -> " + slowest->peer_host + ")";
    if (pairs.size() < 2)  // two ranks: nothing to compare the pair with
      findings.push_back("one pair only: " + who + " moves " + rate(a.sum[k]) + " at " + size(a.bytes[k]));
    else
    {
      // Pairs measured one at a time never moved their sum at once: no total to tell.
      const bool alone = run.concurrency == "alone";
      findings.push_back(std::string(share >= kEven ? "the pairs are even: " : "") + "of " + std::to_string(pairs.size()) +
                         (alone ? " pairs, each alone" : " pairs at once") + ", the slowest is " + who + " at " +
                         size(a.bytes[k]) + ": " + rate(a.slowest[k]) + ", " + percent(share) + " of the median pair (" +
                         rate(typical) + ")" + (alone ? "" : "; all pairs together move " + rate(a.sum[k])));
    }
  }
  if (run.matrix) {
    const MatrixData& m = *run.matrix;
    const auto who = [&](int rank) {
      const std::size_t r = static_cast<std::size_t>(rank);
      std::string where = r < m.rank_host.size() ? m.rank_host[r] : "";
      if (r < m.rank_gpu.size() && !m.rank_gpu[r].empty()) where += ", " + m.rank_gpu[r];
      return "rank " + std::to_string(rank) + " (" + where + ")";
    };
    // A flagged cell between two groups of a split is the split's, told once in its finding.
    const std::vector<MatrixSplit> splits = host_splits(run);
    const auto across_a_split = [&](const FlaggedLink& link) {
      for (const auto& [bytes, split] : splits) {
        if (bytes != m.bytes.at(link.size_index)) continue;
        const auto group_of = [&](int rank) {
          for (std::size_t g = 0; g < split.groups.size(); ++g)
            if (std::count(split.groups[g].begin(), split.groups[g].end(), m.rank_host[static_cast<std::size_t>(rank)])) return g;
          return split.groups.size();
        };
        if (group_of(link.from) != group_of(link.to)) return true;
      }
      return false;
    };
    for (const FlaggedLink& link : m.flagged) {
      if (across_a_split(link)) continue;
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
    add_host_splits(run, findings, static_cast<std::size_t>(std::count_if(m.flagged.begin(), m.flagged.end(), across_a_split)));
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
      if (runs[r].status != RunStatus::complete) continue;  // a partial curve compares nothing
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
