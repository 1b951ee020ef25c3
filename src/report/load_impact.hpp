#pragma once
// A run under load against its isolated twin (--load): per victim path and size how much slower the
// load made it (the impact factor, median and 99th percentile), whether that lies beyond the noise
// (the baseline's judgement, baseline.hpp, with the isolated run as the reference), and what the
// victims that suffer share with the load. docs/ARCHITECTURE.md, "Under load", says why.
#include <optional>
#include <string>
#include <vector>

#include "report/baseline.hpp"
#include "report/host_groups.hpp"
#include "results/run_data.hpp"

namespace npgpu {

// One victim path in one of the two runs, size by size.
struct PathTimes {
  PathFigures figures;           // rates of its trials, as the baseline judges them
  std::vector<double> median_s;  // one-way time per transfer, index for index with figures.sizes
  std::vector<double> p99_s;     // at the 99th percentile; NaN: not measured
};

struct ImpactAtSize {
  double bytes = 0;
  double isolated_s = 0, loaded_s = 0;  // median one-way time per transfer
  double impact = 0;                    // loaded_s / isolated_s
  double impact_p99 = 0;                // the same at the 99th percentile; NaN: not measured
  bool beyond_noise = false;            // the loaded run falls short of the isolated one there
};

struct VictimImpact {
  std::string path;                 // "rank 0 -> rank 1", in ranks of the whole run
  std::vector<int> ranks;           // of the whole run
  std::vector<std::string> hosts;
  // With the load: "host", "group_split", "machine" (a load rank's machine, under other host
  // names: virtual hosts of one machine), "gpu".
  std::vector<std::string> shares;
  std::vector<ImpactAtSize> sizes;
};

struct LoadImpact {
  std::string isolated_run, loaded_run;  // "file:/runs/0001"
  std::string pattern, load_module;
  std::vector<int> load_ranks;
  double load_bytes = 0;
  double load_rate = 0;  // B/s the load moved while the victims measured; 0: unknown
  std::vector<VictimImpact> victims;
  std::string heading;             // which victims under which load: the lines' subject
  std::vector<std::string> lines;  // the answer in words
};

// An impact smaller than this factor is never told beyond the noise: the isolated and the loaded
// run are a minute or more apart, and a load's work in the kernel takes cores from victims it
// never crosses where they share them (virtual hosts of one switch on this project's 2-core
// machine: 8 B cells beside a 12.5 MB/s tcp load between two other hosts read x1.12 to x1.17).
inline constexpr double kLeastImpact = 1.25;

// Each path's impact at each size both runs have; `isolated` and `loaded` index for index. A
// matrix's cells are judged as the baseline judges cells (cell_shortfalls), a curve as a curve, in
// a row of its sizes or of kSizesInARow, whichever is fewer.
std::vector<VictimImpact> victim_impacts(const std::vector<PathTimes>& isolated, const std::vector<PathTimes>& loaded,
                                         bool matrix);

// What a victim path shares with the load: "host" where one of its hosts runs a load rank;
// "group_split" where it crosses between two groups of `split` and the load is not known to stay
// inside one of them (its hosts all in groups, one group each pair).
std::vector<std::string> shares_with_load(const std::vector<std::string>& path_hosts,
                                          const std::vector<std::string>& load_hosts,
                                          const std::optional<HostSplit>& split);

// The answer: which victims suffer, grouped by what they share with the load, and what that means;
// or "no impact within the noise (x0.97 to x1.04)". `oversubscribed` ("8 ranks on 2 cores of one
// machine", or "") says how crowded the machine is that victims under other host names share.
std::vector<std::string> impact_lines(const std::vector<VictimImpact>& victims, const std::optional<HostSplit>& split,
                                      const std::string& oversubscribed);

// Each loaded run with its isolated twin, by index into `runs`: the isolated run of the same file and
// label read last before it, both complete. Launches repeated into one record pair launch by
// launch, never one launch's loaded run with another's isolated run.
std::vector<std::pair<std::size_t, std::size_t>> load_twins(const std::vector<RunData>& runs);

// Every loaded run against its isolated twin, answered.
std::vector<LoadImpact> load_impacts(const std::vector<RunData>& runs);

}  // namespace npgpu
