#include "report/load_impact.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "npgpu/sizes.hpp"
#include "report/baseline_report.hpp"
#include "report/report.hpp"
#include "results/statistics.hpp"

namespace npgpu {
namespace {

std::string run_name(const RunData& run) { return run.file + ":" + run.group; }

std::string size_text(double bytes) { return format_bytes(static_cast<std::uint64_t>(bytes)); }

std::string factor_text(double factor) {
  char text[32];
  std::snprintf(text, sizeof text, factor < 10 ? "x%.2f" : factor < 100 ? "x%.1f" : "x%.0f", factor);
  return text;
}

// "cudaIpc pingpong, pairs 0:1, under a cudaIpc stream load of 4 MiB by ranks 2,3 (311 GB/s)"
std::string load_heading(const std::string& victims, const LoadImpact& load) {
  std::string ranks;
  for (int rank : load.load_ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(rank);
  const std::string moved = load.load_rate > 0 ? " (" + format_throughput(load.load_rate, Units::decimal) + ")" : "";
  return victims + ", under a " + load.load_module + " " + load.pattern + " load of " + size_text(load.load_bytes) +
         " by ranks " + ranks + moved;
}

double ratio_or_nan(double loaded, double isolated) {
  return std::isfinite(loaded) && std::isfinite(isolated) && isolated > 0 ? loaded / isolated : std::nan("");
}

bool listed(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// The group of `split` a host is in; groups.size() where none.
std::size_t group_of(const HostSplit& split, const std::string& host) {
  for (std::size_t g = 0; g < split.groups.size(); ++g)
    if (listed(split.groups[g], host)) return g;
  return split.groups.size();
}

// What a list by rank of the whole run (its hosts, its machines) says of `rank`; "" where it says nothing.
std::string entry_of(const std::vector<std::string>& by_rank, int rank) {
  return static_cast<std::size_t>(rank) < by_rank.size() ? by_rank[static_cast<std::size_t>(rank)] : "";
}

std::string host_of(const LoadData& load, int rank) { return entry_of(load.hosts, rank); }

// A victim path's GPUs as "host/PCI bus id", from its ranks' placement in `run`.
std::vector<std::string> victim_gpus(const RunData& run, const VictimImpact& victim) {
  const LoadData& load = *run.load_facts;
  std::vector<std::string> gpus;
  for (int rank : victim.ranks) {
    const auto own = static_cast<std::size_t>(std::find(load.victims.begin(), load.victims.end(), rank) - load.victims.begin());
    if (own >= run.rank_facts.size()) continue;
    const auto bus = run.rank_facts[own].find("gpu_pci_bus_id");
    if (bus != run.rank_facts[own].end() && !bus->second.empty()) gpus.push_back(host_of(load, rank) + "/" + bus->second);
  }
  return gpus;
}

// The load ranks' hosts, or machines, where the record names them.
std::vector<std::string> of_load_ranks(const LoadData& load, const std::vector<std::string>& by_rank) {
  std::vector<std::string> entries;
  for (int rank : load.ranks)
    if (std::string entry = entry_of(by_rank, rank); !entry.empty()) entries.push_back(std::move(entry));
  return entries;
}

// The load ranks' GPUs, as victim_gpus has them; a rank that copies between GPUs (p2p) lists each.
std::vector<std::string> load_gpus(const LoadData& load) {
  std::vector<std::string> gpus;
  for (std::size_t i = 0; i < load.ranks.size() && i < load.gpus.size(); ++i) {
    std::istringstream ids(load.gpus[i]);
    for (std::string id; ids >> id;)
      if (id != "none") gpus.push_back(host_of(load, load.ranks[i]) + "/" + id);
  }
  return gpus;
}

std::string groups_text(const HostSplit& split) {
  std::string text;
  for (const std::vector<std::string>& group : split.groups) {
    std::string hosts;
    for (const std::string& host : group) hosts += (hosts.empty() ? "" : ", ") + host;
    text += (text.empty() ? "{" : " | {") + hosts + "}";
  }
  return text;
}

// A run's time at one size of a path: the median of its trials, and its tail where measured.
void add_times(PathTimes& times, const std::vector<double>& trials, double p99) {
  times.median_s.push_back(trials.empty() ? std::nan("") : median_of(trials));
  times.p99_s.push_back(p99 > 0 ? p99 : std::nan(""));
}

std::string path_name(const std::vector<int>& ranks) {
  std::string name;
  for (int rank : ranks) name += (name.empty() ? "rank " : " -> rank ") + std::to_string(rank);
  return name;
}

// The whole run's rank of a victim's own rank.
int world_rank(const LoadData& load, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  return r < load.victims.size() ? load.victims[r] : rank;
}

// Each victim path of a run (its curves, or its matrix's cells), named in ranks of the whole run.
std::vector<PathTimes> victim_paths(const RunData& run) {
  std::vector<PathTimes> paths;
  const LoadData& load = *run.load_facts;
  const auto rename = [&](PathFigures& figures) {
    for (int& rank : figures.ranks) rank = world_rank(load, rank);
    figures.name = path_name(figures.ranks);
  };
  if (run.matrix) {
    const MatrixData& m = *run.matrix;
    const std::size_t n = static_cast<std::size_t>(m.ranks());
    for (MatrixCell& cell : matrix_cells(m, TrialsBy::median)) {
      PathTimes& times = paths.emplace_back();
      const std::size_t at = static_cast<std::size_t>(cell.figures.ranks[0]) * n + static_cast<std::size_t>(cell.figures.ranks[1]);
      for (const SizeFigure& size : cell.figures.sizes)
        for (std::size_t s = 0; s < m.bytes.size(); ++s)
          if (m.bytes[s] == size.bytes) {
            const std::size_t index = s * n * n + at;
            add_times(times, m.trial_seconds[index], index < m.tail_p99_seconds.size() ? m.tail_p99_seconds[index] : 0);
            break;
          }
      times.figures = std::move(cell.figures);
      rename(times.figures);
    }
    return paths;
  }
  for (const CurveData& curve : run.curves) {
    PathTimes& times = paths.emplace_back();
    times.figures = curve_figures(curve, TrialsBy::median);
    rename(times.figures);
    for (std::size_t i = 0; i < times.figures.sizes.size(); ++i)
      add_times(times, curve.trial_seconds[i], i < curve.tail_p99_seconds.size() ? curve.tail_p99_seconds[i] : 0);
  }
  return paths;
}

// Victims alike in what they share with the load, and their impact size by size.
struct ShareClass {
  std::vector<std::string> shares;
  std::vector<const VictimImpact*> victims;
  double worst = 0;  // the largest factor of a size beyond the noise; 0: none is
  bool suffers() const { return worst > 0; }
  // Virtual hosts of the load's machine that share nothing else with it: the load's work in the
  // kernel takes their cores, which says nothing of the way between them.
  bool shares_only_the_machine() const { return shares == std::vector<std::string>{"machine"}; }
};

std::string class_words(const std::vector<std::string>& shares, const std::optional<HostSplit>& split) {
  const bool host = listed(shares, "host"), across = listed(shares, "group_split"), gpu = listed(shares, "gpu");
  if (gpu) return "victims on the load's GPUs" + (across ? ", across the split " + groups_text(*split) : std::string());
  if (host && across) return "victims on the load's hosts, across the split " + groups_text(*split);
  if (host) return "victims on the load's hosts";
  if (across) return "victims across the split " + groups_text(*split);
  if (split) return "victims inside a group";
  return listed(shares, "machine") ? "victims on the load's machine, not its hosts" : "victims that share no host with the load";
}

// "8 B one-way x6.20 under load (99th percentile x14.0), 1 MiB x3.10": the median over the class's
// paths at each size where one of them lies beyond the noise; else the range of its factors.
// "x2.0", or "x1.5 to x2.0" where they differ as the report writes them.
std::string factor_range(const std::vector<double>& factors) {
  const auto [low, high] = std::minmax_element(factors.begin(), factors.end());
  return factor_text(*low) + (factor_text(*low) == factor_text(*high) ? "" : " to " + factor_text(*high));
}

// Each size told by name where a few are beyond the noise; a range of sizes and factors where many
// are (a curve's sweep has dozens).
constexpr std::size_t kSizesNamed = 3;

std::string class_impact(const ShareClass& c) {
  std::map<double, std::vector<const ImpactAtSize*>> by_size;
  for (const VictimImpact* victim : c.victims)
    for (const ImpactAtSize& size : victim->sizes) by_size[size.bytes].push_back(&size);
  struct Told {
    double bytes, factor, tail;  // tail: NaN where not measured
  };
  std::vector<Told> told;
  std::vector<double> every;
  for (const auto& [bytes, sizes] : by_size) {
    std::vector<double> factors, tails;
    bool beyond = false;
    for (const ImpactAtSize* size : sizes) {
      factors.push_back(size->impact);
      if (std::isfinite(size->impact_p99)) tails.push_back(size->impact_p99);
      beyond = beyond || size->beyond_noise;
      every.push_back(size->impact);
    }
    if (beyond) told.push_back({bytes, median_of(factors), tails.empty() ? std::nan("") : median_of(tails)});
  }
  if (told.empty()) return factor_range(every) + ", within the noise";
  std::vector<double> factors, tails;
  for (const Told& size : told) {
    factors.push_back(size.factor);
    if (std::isfinite(size.tail)) tails.push_back(size.tail);
  }
  if (told.size() > kSizesNamed)
    return size_text(told.front().bytes) + " to " + size_text(told.back().bytes) + " one-way " + factor_range(factors) +
           " under load" + (tails.empty() ? "" : " (99th percentile " + factor_range(tails) + ")") + ", at " +
           std::to_string(told.size()) + " sizes";
  std::string text;
  for (const Told& size : told) {
    text += (text.empty() ? "" : ", ") + size_text(size.bytes) + " one-way " + factor_text(size.factor) +
            (text.empty() ? " under load" : "");
    if (std::isfinite(size.tail)) text += " (99th percentile " + factor_text(size.tail) + ")";
  }
  return text;
}

}  // namespace

std::vector<VictimImpact> victim_impacts(const std::vector<PathTimes>& isolated, const std::vector<PathTimes>& loaded,
                                         bool matrix) {
  std::vector<PathFigures> isolated_figures, loaded_figures;
  for (const PathTimes& path : isolated) isolated_figures.push_back(path.figures);
  for (const PathTimes& path : loaded) loaded_figures.push_back(path.figures);
  std::vector<Shortfall> shortfalls;
  if (matrix) {
    shortfalls = cell_shortfalls("", loaded_figures, isolated_figures, true, kLeastImpact);
  } else {
    for (std::size_t p = 0; p < loaded.size() && p < isolated.size(); ++p) {
      const std::size_t in_a_row = std::min(kSizesInARow, std::max<std::size_t>(1, loaded[p].figures.sizes.size()));
      for (const Shortfall& s : curve_shortfalls("", loaded_figures[p], isolated_figures[p], in_a_row, kLeastImpact))
        shortfalls.push_back(s);
    }
  }
  std::vector<VictimImpact> victims;
  for (std::size_t p = 0; p < loaded.size() && p < isolated.size(); ++p) {
    const PathFigures& path = loaded[p].figures;
    VictimImpact& victim = victims.emplace_back(VictimImpact{path.name, path.ranks, path.hosts, {}, {}});
    for (std::size_t i = 0; i < path.sizes.size() && i < loaded[p].median_s.size(); ++i) {
      const double bytes = path.sizes[i].bytes;
      for (std::size_t j = 0; j < isolated[p].figures.sizes.size() && j < isolated[p].median_s.size(); ++j) {
        if (isolated[p].figures.sizes[j].bytes != bytes) continue;
        const double impact = ratio_or_nan(loaded[p].median_s[i], isolated[p].median_s[j]);
        // The judgement reads median trials as the impact does; a size that did not slow is none.
        const bool beyond = impact > 1 && std::any_of(shortfalls.begin(), shortfalls.end(), [&](const Shortfall& s) {
          return s.path == path.name && s.bytes == bytes;
        });
        victim.sizes.push_back({bytes, isolated[p].median_s[j], loaded[p].median_s[i], impact,
                                ratio_or_nan(loaded[p].p99_s[i], isolated[p].p99_s[j]), beyond});
      }
    }
  }
  return victims;
}

std::vector<std::string> shares_with_load(const std::vector<std::string>& path_hosts,
                                          const std::vector<std::string>& load_hosts,
                                          const std::optional<HostSplit>& split) {
  std::vector<std::string> shares;
  if (std::any_of(path_hosts.begin(), path_hosts.end(), [&](const std::string& host) { return listed(load_hosts, host); }))
    shares.push_back("host");
  if (!split || path_hosts.size() < 2) return shares;
  std::set<std::size_t> path_groups, load_groups;
  for (const std::string& host : path_hosts) path_groups.insert(group_of(*split, host));
  for (const std::string& host : load_hosts) load_groups.insert(group_of(*split, host));
  const bool path_crosses = path_groups.size() > 1 && !path_groups.count(split->groups.size());
  const bool load_inside_one = load_groups.size() == 1 && !load_groups.count(split->groups.size());
  if (path_crosses && !load_inside_one) shares.push_back("group_split");
  return shares;
}

std::vector<std::string> impact_lines(const std::vector<VictimImpact>& victims, const std::optional<HostSplit>& split,
                                      const std::string& oversubscribed) {
  double low = INFINITY, high = 0;
  bool any_beyond = false;
  std::vector<ShareClass> classes;
  for (const VictimImpact& victim : victims) {
    auto found = std::find_if(classes.begin(), classes.end(), [&](const ShareClass& c) { return c.shares == victim.shares; });
    if (found == classes.end()) found = classes.insert(classes.end(), ShareClass{victim.shares, {}, 0});
    found->victims.push_back(&victim);
    for (const ImpactAtSize& size : victim.sizes) {
      low = std::min(low, size.impact);
      high = std::max(high, size.impact);
      if (size.beyond_noise) found->worst = std::max(found->worst, size.impact);
      any_beyond = any_beyond || size.beyond_noise;
    }
  }
  if (victims.empty() || low > high) return {"no victim path measured in both runs: no impact to tell"};
  if (!any_beyond) return {"no impact within the noise (" + factor_text(low) + " to " + factor_text(high) + ")"};
  // Those that suffer first, the worst hit leading; then the others, each with what it shares.
  std::stable_sort(classes.begin(), classes.end(), [](const ShareClass& a, const ShareClass& b) { return a.worst > b.worst; });
  std::string line;
  for (const ShareClass& c : classes) line += (line.empty() ? "" : "; ") + class_words(c.shares, split) + ": " + class_impact(c);
  // Victims that share only the load's machine (virtual hosts of it) suffer what sharing its cores
  // does. Others on that machine that suffer no more than x1.25 over them are told with them, not by
  // what else they share: between virtual hosts of one switch under a 113 MB/s load, cells across a
  // split that the load's noise drew read x1.26 beside x1.31 inside the groups.
  double machine_alone = 0;
  for (const ShareClass& c : classes)
    if (c.shares_only_the_machine()) machine_alone = std::max(machine_alone, c.worst);
  const auto machine_explains = [&](const ShareClass& c) {
    return c.suffers() && listed(c.shares, "machine") && c.worst <= machine_alone * kLeastImpact;
  };
  const auto suffers = [&](const std::string& share, bool with) {
    return std::any_of(classes.begin(), classes.end(), [&](const ShareClass& c) {
      return c.suffers() && !machine_explains(c) && listed(c.shares, share) == with;
    });
  };
  const bool across = suffers("group_split", true), elsewhere = suffers("group_split", false);
  const bool on_hosts = suffers("host", true), off_hosts = suffers("host", false);
  const bool on_gpus = suffers("gpu", true), off_gpus = suffers("gpu", false);
  const bool on_machine = std::any_of(classes.begin(), classes.end(), machine_explains);
  std::string why;
  if (across && !elsewhere)
    why = "the load fills the link between the groups";
  else if (on_gpus && !off_gpus)
    why = "the load's GPUs are what they share (their copy engines, memory and links)";
  else if (on_hosts && !off_hosts)
    why = "the load's hosts are what they share (their network link, memory or GPUs)";
  else if (off_hosts)
    why = "victims that share no host with the load suffer too, so what they share lies on the way (a switch, a trunk)";
  const std::string machine = "(" + (oversubscribed.empty() ? "under other host names" : oversubscribed) + ")";
  if (on_machine && why.empty())
    why = "the load's machine is what they share " + machine + ", not a link on the way";
  else if (on_machine)
    why += "; the others suffer no more than sharing the load's machine does " + machine;
  return {line + ": " + why};
}

std::vector<std::pair<std::size_t, std::size_t>> load_twins(const std::vector<RunData>& runs) {
  std::vector<std::pair<std::size_t, std::size_t>> twins;
  for (std::size_t l = 0; l < runs.size(); ++l) {
    const RunData& loaded = runs[l];
    if (loaded.load != "loaded" || !loaded.load_facts || loaded.status != RunStatus::complete) continue;
    for (std::size_t i = l; i-- > 0;) {
      const RunData& isolated = runs[i];
      if (isolated.load != "isolated" || isolated.file != loaded.file ||
          run_label(isolated, "load") != run_label(loaded, "load"))
        continue;
      if (isolated.status == RunStatus::complete && isolated.load_facts) twins.emplace_back(i, l);
      break;
    }
  }
  return twins;
}

std::vector<LoadImpact> load_impacts(const std::vector<RunData>& runs) {
  std::vector<LoadImpact> impacts;
  for (const auto& [i, l] : load_twins(runs)) {
    const RunData &isolated = runs[i], &loaded = runs[l];
    const LoadData& load = *loaded.load_facts;
    LoadImpact impact{run_name(isolated), run_name(loaded), load.pattern, load.module, load.ranks, load.bytes,
                      load.moved_seconds > 0 ? load.moved_bytes / load.moved_seconds : 0, {}, {}, {}};
    impact.heading = load_heading(run_label(loaded, "load"), impact);
    impact.victims = victim_impacts(victim_paths(isolated), victim_paths(loaded), loaded.matrix.has_value());
    // The groups the victims' matrix finds, under the load or else alone, at its first stream size.
    std::vector<MatrixSplit> splits = host_splits(loaded);
    if (splits.empty()) splits = host_splits(isolated);
    const std::optional<HostSplit> split = splits.empty() ? std::nullopt : std::optional<HostSplit>(splits.front().split);
    const std::vector<std::string> hosts_of_load = of_load_ranks(load, load.hosts),
                                   machines_of_load = of_load_ranks(load, load.machines), gpus_of_load = load_gpus(load);
    for (VictimImpact& victim : impact.victims) {
      victim.shares = shares_with_load(victim.hosts, hosts_of_load, split);
      if (!listed(victim.shares, "host") && std::any_of(victim.ranks.begin(), victim.ranks.end(), [&](int rank) {
            return listed(machines_of_load, entry_of(load.machines, rank));
          }))
        victim.shares.push_back("machine");
      const std::vector<std::string> gpus = victim_gpus(loaded, victim);
      if (std::any_of(gpus.begin(), gpus.end(), [&](const std::string& gpu) { return listed(gpus_of_load, gpu); }))
        victim.shares.push_back("gpu");
    }
    impact.lines = impact_lines(impact.victims, split, load.oversubscribed);
    impacts.push_back(std::move(impact));
  }
  return impacts;
}

}  // namespace npgpu
