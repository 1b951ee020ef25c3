#include "report/host_groups.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "npgpu/pairing.hpp"
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

// A candidate: each host's group, numbered in the order of their first hosts; -1 in none.
using Grouping = std::vector<int>;

// Groups of two hosts or more, renumbered by first host; none where fewer than two remain.
std::optional<Grouping> groups_of_two_or_more(const Grouping& label) {
  std::map<int, std::size_t> members;
  for (int l : label) ++members[l];
  std::map<int, int> number;
  Grouping group(label.size(), -1);
  for (std::size_t h = 0; h < label.size(); ++h)
    if (members[label[h]] >= 2) group[h] = number.emplace(label[h], static_cast<int>(number.size())).first->second;
  if (number.size() < 2) return std::nullopt;
  return group;
}

// The matrix at one size, host by host.
struct Cells {
  std::size_t ranks = 0;
  std::vector<std::string> hosts;
  std::vector<std::size_t> host_of;  // by rank
  std::vector<double> rate;          // by cell, B/s; NaN not measured
  std::vector<double> link;          // host to host (from * hosts + to): the median of its cells; NaN none
  double fast = 0, flag_below = 0, threshold = 0;  // what the fastest links reach; slow under threshold

  std::size_t sender(std::size_t cell) const { return host_of[cell / ranks]; }
  std::size_t receiver(std::size_t cell) const { return host_of[cell % ranks]; }
};

// What each cell shared the way between groups with, and what crossed one way at once.
struct Crowds {
  std::vector<int> crowd;  // as HostSplit::crowd
  double at_once = 0;      // B/s
};

// The step's cells start each trial at once and move the same bytes, so together the cells of one
// step from one group to another moved as many times those bytes as there are cells in the time
// the slowest took. The sum of their rates counts a pair that finished first as if the other had
// been slowed all along: on 4 hosts, two pairs sharing a trunk 60:40 sum to 1.1 x its rate (1.104
// in one CI launch). What crossed at once is told by the largest crowds, the median over their
// steps: a lone pair across a trunk faster than a link measures the link, and the most over all
// steps is the noisiest (racks of 3 on a trunk of 25 MB/s: 26.0 to 28.1 MB/s in one launch).
Crowds crowds_of(const Cells& cells, const Grouping& group, const std::vector<std::vector<std::size_t>>& steps) {
  Crowds crowds{std::vector<int>(cells.rate.size(), steps.empty() ? -1 : 0), 0};
  int largest = 0;
  std::vector<double> largest_at_once;
  for (const std::vector<std::size_t>& step : steps) {
    std::map<std::pair<int, int>, std::pair<int, double>> crossing;  // way -> cells, slowest
    const auto way = [&](std::size_t cell) { return std::make_pair(group[cells.sender(cell)], group[cells.receiver(cell)]); };
    for (std::size_t cell : step) {
      const auto [from, to] = way(cell);
      if (from < 0 || to < 0 || from == to) continue;
      auto& [count, slowest] = crossing.try_emplace({from, to}, 0, INFINITY).first->second;
      ++count;
      if (std::isfinite(cells.rate[cell])) slowest = std::min(slowest, cells.rate[cell]);
    }
    for (std::size_t cell : step)
      if (const auto found = crossing.find(way(cell)); found != crossing.end()) crowds.crowd[cell] = found->second.first;
    for (const auto& [direction, count_slowest] : crossing) {
      const auto& [count, slowest] = count_slowest;
      if (!std::isfinite(slowest) || count < largest) continue;
      if (count > largest) largest_at_once.clear();
      largest = count;
      largest_at_once.push_back(count * slowest);
    }
  }
  if (!largest_at_once.empty()) crowds.at_once = median_of(largest_at_once);
  return crowds;
}

struct Judged {
  std::size_t cells = 0, unexplained = 0, slow_across = 0;
  double misfit = 0;  // the mean |log(rate / the nearest rate expected)| over the cells
};

// Which cells the grouping explains. Inside a group a cell is fast. Across, where the schedule is
// not known, it is slow; where it is, the link between carried what crossed at once, so a crowd
// of k had that over k each, at most a link's rate: a cell is slow only where that share is under
// a link's rate, and fast only where it is within flag_below of the share. Groupings that explain
// enough are told apart by how near each cell lies to the rates expected of it: in a crowd, from
// its share to what crossed at once (one pair of a crowd may finish first).
Judged judge(const Cells& cells, const Grouping& group, const Crowds& crowds) {
  Judged judged;
  for (std::size_t cell = 0; cell < cells.rate.size(); ++cell) {
    const int from = group[cells.sender(cell)], to = group[cells.receiver(cell)];
    if (from < 0 || to < 0 || cells.sender(cell) == cells.receiver(cell) || !std::isfinite(cells.rate[cell])) continue;
    const bool slow = cells.rate[cell] < cells.threshold;
    bool explained = !slow;
    double lowest = cells.fast, highest = cells.fast;  // the rates expected of it
    if (from != to && crowds.crowd[cell] < 0) {
      explained = slow;
      lowest = highest = cells.rate[cell];
    } else if (from != to) {
      const double share = crowds.at_once / crowds.crowd[cell];
      lowest = std::min(share, cells.fast);
      highest = std::min(crowds.at_once, cells.fast);
      explained = slow ? share < cells.fast : cells.flag_below * cells.rate[cell] <= lowest;
    }
    ++judged.cells;
    judged.misfit += std::abs(std::log(std::clamp(cells.rate[cell], lowest, highest) / cells.rate[cell]));
    judged.unexplained += explained ? 0 : 1;
    judged.slow_across += from != to && slow && explained ? 1 : 0;
  }
  if (judged.cells > 0) judged.misfit /= static_cast<double>(judged.cells);
  return judged;
}

// Hosts joined by fast links both ways.
Grouping joined_by_fast_links(const Cells& cells) {
  const std::size_t n = cells.hosts.size();
  const auto fast = [&](std::size_t a, std::size_t b) { return cells.link[a * n + b] >= cells.threshold; };
  UnionFind joined(n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (a != b && fast(a, b) && fast(b, a)) joined.join(a, b);
  Grouping label(n);
  for (std::size_t h = 0; h < n; ++h) label[h] = static_cast<int>(joined.find(h));
  return label;
}

Cells cells_at(const MatrixData& matrix, std::size_t size) {
  Cells cells;
  cells.ranks = static_cast<std::size_t>(matrix.ranks());
  for (std::size_t r = 0; r < cells.ranks; ++r) {
    const auto found = std::find(cells.hosts.begin(), cells.hosts.end(), matrix.rank_host[r]);
    cells.host_of.push_back(static_cast<std::size_t>(found - cells.hosts.begin()));
    if (found == cells.hosts.end()) cells.hosts.push_back(matrix.rank_host[r]);
  }
  const std::size_t count = cells.ranks * cells.ranks;
  if (matrix.throughput.size() < (size + 1) * count) return cells;
  cells.rate.assign(matrix.throughput.begin() + static_cast<std::ptrdiff_t>(size * count),
                    matrix.throughput.begin() + static_cast<std::ptrdiff_t>((size + 1) * count));
  // Host to host: the median of their cells.
  const std::size_t n = cells.hosts.size();
  std::vector<std::vector<double>> link(n * n);
  for (std::size_t cell = 0; cell < count; ++cell)
    if (cells.sender(cell) != cells.receiver(cell) && std::isfinite(cells.rate[cell]))
      link[cells.sender(cell) * n + cells.receiver(cell)].push_back(cells.rate[cell]);
  std::vector<double> rates;
  for (const std::vector<double>& l : link) {
    cells.link.push_back(l.empty() ? std::nan("") : median_of(l));
    if (!l.empty()) rates.push_back(cells.link.back());
  }
  cells.fast = fast_reference(rates);
  cells.flag_below = matrix.flag_below;
  cells.threshold = matrix.flag_below * cells.fast;
  return cells;
}

}  // namespace

std::vector<std::vector<std::size_t>> all_pairs_steps(int ranks) {
  std::vector<std::vector<std::size_t>> steps;
  for (const PairStep& step : pairing_steps({PairingMode::all, 0, 1, ranks, 0, 0, false})) {
    std::vector<std::size_t>& cells = steps.emplace_back();
    for (int rank : step.timers)
      cells.push_back(static_cast<std::size_t>(rank * ranks + step.peers[static_cast<std::size_t>(rank)].to));
  }
  return steps;
}

std::optional<HostSplit> split_hosts(const MatrixData& matrix, std::size_t size,
                                     const std::vector<std::vector<std::size_t>>& steps) {
  const Cells cells = cells_at(matrix, size);
  const std::size_t n = cells.hosts.size();
  if (n < 4 || cells.rate.empty() || !(cells.fast > 0)) return std::nullopt;

  std::vector<Grouping> candidates;
  if (std::optional<Grouping> joined = groups_of_two_or_more(joined_by_fast_links(cells))) candidates.push_back(*joined);
  // Every split in two, the first host's group first: with one pair crossing at a time as fast
  // as a link, only the crowds tell which hosts share the way between.
  if (!steps.empty() && n <= kMostHostsToBisect)
    for (std::size_t mask = 1; mask < (std::size_t{1} << (n - 1)); ++mask) {
      Grouping label(n, 0);
      for (std::size_t h = 1; h < n; ++h) label[h] = static_cast<int>((mask >> (h - 1)) & 1);
      if (std::optional<Grouping> two = groups_of_two_or_more(label); two && *two == label) candidates.push_back(label);
    }

  std::optional<Grouping> best;
  Crowds best_crowds;
  double best_misfit = INFINITY;
  for (const Grouping& group : candidates) {
    Crowds crowds = crowds_of(cells, group, steps);
    const Judged judged = judge(cells, group, crowds);
    if (judged.slow_across == 0 ||
        static_cast<double>(judged.unexplained) > (1 - kAllButATenth) * static_cast<double>(judged.cells) ||
        judged.misfit >= best_misfit)
      continue;
    best = group;
    best_crowds = std::move(crowds);
    best_misfit = judged.misfit;
  }
  if (!best) return std::nullopt;

  HostSplit split;
  std::vector<double> within, across;
  for (std::size_t h = 0; h < n; ++h)
    if (const int g = (*best)[h]; g >= 0) {
      if (static_cast<std::size_t>(g) >= split.groups.size()) split.groups.resize(static_cast<std::size_t>(g) + 1);
      split.groups[static_cast<std::size_t>(g)].push_back(cells.hosts[h]);
    }
  for (std::size_t cell = 0; cell < cells.rate.size(); ++cell) {
    const int from = (*best)[cells.sender(cell)], to = (*best)[cells.receiver(cell)];
    if (from >= 0 && to >= 0 && cells.sender(cell) != cells.receiver(cell) && std::isfinite(cells.rate[cell]))
      (from == to ? within : across).push_back(cells.rate[cell]);
  }
  split.within = median_of(within);
  split.across = median_of(across);
  split.across_at_once = best_crowds.at_once;
  split.crowd = std::move(best_crowds.crowd);
  return split;
}

}  // namespace npgpu
