#include "report/host_groups.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "results/statistics.hpp"

namespace npgpu {
namespace {

constexpr double kAllButATenth = 0.9;

// The rate the fastest links reach: the 90th percentile, so that links inside groups, the
// fastest class, decide it while they are a tenth of all links or more (up to ten groups).
double fast_reference(std::vector<double> rates) {
  std::sort(rates.begin(), rates.end());
  return rates.empty() ? std::nan("") : rates[static_cast<std::size_t>(0.9 * static_cast<double>(rates.size() - 1))];
}

struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(std::size_t a, std::size_t b) { parent[find(a)] = find(b); }
};

}  // namespace

std::optional<HostSplit> split_hosts(const MatrixData& matrix, std::size_t size,
                                     const std::vector<std::vector<std::size_t>>& steps) {
  const auto ranks = static_cast<std::size_t>(matrix.ranks());
  std::vector<std::string> hosts;
  std::vector<std::size_t> host_of(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto found = std::find(hosts.begin(), hosts.end(), matrix.rank_host[r]);
    host_of[r] = static_cast<std::size_t>(found - hosts.begin());
    if (found == hosts.end()) hosts.push_back(matrix.rank_host[r]);
  }
  const std::size_t n = hosts.size();
  if (n < 4 || matrix.throughput.size() < (size + 1) * ranks * ranks) return std::nullopt;
  const auto rate_of = [&](std::size_t cell) { return matrix.throughput.at(size * ranks * ranks + cell); };

  // Host to host: the median of their cells.
  std::vector<std::vector<double>> cells(n * n);
  for (std::size_t cell = 0; cell < ranks * ranks; ++cell) {
    const std::size_t a = host_of[cell / ranks], b = host_of[cell % ranks];
    if (a != b && std::isfinite(rate_of(cell))) cells[a * n + b].push_back(rate_of(cell));
  }
  std::vector<double> link(n * n, std::nan("")), rates;
  for (std::size_t i = 0; i < n * n; ++i)
    if (!cells[i].empty()) rates.push_back(link[i] = median_of(cells[i]));
  const double threshold = matrix.flag_below * fast_reference(rates);
  if (std::isnan(threshold)) return std::nullopt;

  UnionFind joined(n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (a != b && link[a * n + b] >= threshold && link[b * n + a] >= threshold) joined.join(a, b);
  std::map<std::size_t, std::vector<std::size_t>> components;
  for (std::size_t h = 0; h < n; ++h) components[joined.find(h)].push_back(h);
  std::vector<int> group(n, -1);
  HostSplit split;
  for (const auto& [root, members] : components) {
    if (members.size() < 2) continue;  // a slow host, not a group
    for (std::size_t h : members) group[h] = static_cast<int>(split.groups.size());
    std::vector<std::string>& names = split.groups.emplace_back();
    for (std::size_t h : members) names.push_back(hosts[h]);
  }
  if (split.groups.size() < 2) return std::nullopt;

  std::vector<double> within, across;
  std::size_t fast_within = 0, slow_across = 0;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b || group[a] < 0 || group[b] < 0 || std::isnan(link[a * n + b])) continue;
      const bool fast = link[a * n + b] >= threshold;
      if (group[a] == group[b]) {
        within.push_back(link[a * n + b]);
        fast_within += fast ? 1 : 0;
      } else {
        across.push_back(link[a * n + b]);
        slow_across += fast ? 0 : 1;
      }
    }
  // Nothing to say where no cell between the groups was measured.
  if (across.empty() || static_cast<double>(fast_within) < kAllButATenth * static_cast<double>(within.size()) ||
      static_cast<double>(slow_across) < kAllButATenth * static_cast<double>(across.size()))
    return std::nullopt;
  split.within = median_of(within);
  split.across = median_of(across);

  // What crossed from one group to another in one step, together. The step's cells start each
  // trial at once and move the same bytes, so together they moved as many times those bytes as
  // there are cells in the time the slowest took. The sum of their rates counts a pair that
  // finished first as if the other had been slowed all along: on 4 hosts, two pairs sharing a
  // trunk 60:40 sum to 1.1 x its rate (1.104 in one CI launch).
  struct Crossing {
    int cells = 0;
    double slowest = INFINITY;
  };
  for (const std::vector<std::size_t>& step : steps) {
    std::map<std::pair<int, int>, Crossing> crossing;
    for (std::size_t cell : step) {
      const int from = group[host_of[cell / ranks]], to = group[host_of[cell % ranks]];
      if (from < 0 || to < 0 || from == to || !std::isfinite(rate_of(cell))) continue;
      Crossing& direction = crossing[{from, to}];
      ++direction.cells;
      direction.slowest = std::min(direction.slowest, rate_of(cell));
    }
    for (const auto& [direction, cells] : crossing)
      split.across_at_once = std::max(split.across_at_once, cells.cells * cells.slowest);
  }
  return split;
}

}  // namespace npgpu
