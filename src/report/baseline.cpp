#include "report/baseline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "npgpu/sizes.hpp"
#include "results/statistics.hpp"

namespace npgpu {
namespace {

// 1.48 x the median absolute deviation from the median: the standard deviation of normal noise,
// undisturbed by a few outliers.
double spread_about_median(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double middle = median_of(values);
  std::vector<double> deviations;
  for (double v : values) deviations.push_back(std::fabs(v - middle));
  return 1.4826 * median_of(deviations);
}

// How far the log ratio scatters from one size to the next: a level the whole curve shares (the
// loss itself) does not count, the disturbances of the machine between launches do.
double scatter_along(const std::vector<double>& log_ratios) {
  if (log_ratios.size() < 3) return 0;
  std::vector<double> steps;
  for (std::size_t i = 1; i < log_ratios.size(); ++i) steps.push_back(std::fabs(log_ratios[i] - log_ratios[i - 1]));
  return 1.4826 * median_of(steps) / std::sqrt(2.0);
}

// Sizes of both, matched by bytes (one schedule makes both).
struct Matched {
  SizeFigure measured, reference;
  double log_ratio = 0;
};

std::vector<Matched> matched_sizes(const PathFigures& measured, const PathFigures& reference) {
  std::vector<Matched> matched;
  for (const SizeFigure& m : measured.sizes)
    for (const SizeFigure& r : reference.sizes)
      if (r.bytes == m.bytes && m.rate > 0 && r.rate > 0) matched.push_back({m, r, std::log(m.rate / r.rate)});
  return matched;
}

// The ratio under which a size falls short, given the noise the figures and their neighbours show.
double bound_of(const Matched& size, double scatter, double least_loss = kLeastLoss) {
  const double noise = std::sqrt(size.measured.spread * size.measured.spread +
                                 size.reference.spread * size.reference.spread + scatter * scatter);
  return std::exp(-std::max(std::log(least_loss), kNoiseWidths * noise));
}

Shortfall shortfall_of(const std::string& run, const PathFigures& path, const Matched& size, double bound) {
  return {run,
          path.name,
          path.hosts,
          path.ranks,
          size.measured.bytes,
          size.measured.rate,
          size.reference.rate,
          size.measured.rate / size.reference.rate,
          bound,
          size.reference.records};
}

bool share_a_host(const Shortfall& a, const Shortfall& b) {
  return std::any_of(a.hosts.begin(), a.hosts.end(),
                     [&](const std::string& host) { return std::find(b.hosts.begin(), b.hosts.end(), host) != b.hosts.end(); });
}

std::string size_text(double bytes) { return format_bytes(static_cast<std::uint64_t>(bytes)); }

std::string path_with_hosts(const Shortfall& s) {
  std::string hosts;
  for (const std::string& host : s.hosts) hosts += (hosts.empty() ? "" : " -> ") + host;
  return s.path + (hosts.empty() ? "" : " (" + hosts + ")");
}

// "at 8 B and 1 MiB", or "at 31 sizes from 2 KiB to 1 MiB".
std::string sizes_text(const std::set<double>& sizes) {
  if (sizes.size() > 3)
    return "at " + std::to_string(sizes.size()) + " sizes from " + size_text(*sizes.begin()) + " to " +
           size_text(*sizes.rbegin());
  std::string text = "at ";
  std::size_t k = 0;
  for (double bytes : sizes) {
    text += (k == 0 ? "" : k + 1 == sizes.size() ? " and " : ", ") + size_text(bytes);
    ++k;
  }
  return text;
}

// What the short paths at one size share, each with the shortfalls it stands for: every compared
// path (the whole node where they all sit on one host), every link of some hosts, or else the
// paths themselves.
using SharedWords = std::pair<std::string, std::vector<const Shortfall*>>;
std::vector<SharedWords> shared_at_size(const std::vector<const Shortfall*>& short_here,
                                        const std::vector<const PathFigures*>& compared_here) {
  std::set<std::string> short_paths;
  for (const Shortfall* s : short_here) short_paths.insert(s->path);
  if (compared_here.size() > 1 && short_paths.size() == compared_here.size()) {
    std::set<std::string> hosts;
    for (const PathFigures* p : compared_here) hosts.insert(p->hosts.begin(), p->hosts.end());
    return {{hosts.size() == 1 ? "every link, the whole node " + *hosts.begin()
                               : "every link of all " + std::to_string(hosts.size()) + " hosts",
             short_here}};
  }
  std::vector<SharedWords> shared;
  std::set<std::string> explained;
  std::set<std::string> hosts;
  for (const Shortfall* s : short_here) hosts.insert(s->hosts.begin(), s->hosts.end());
  for (const std::string& host : hosts) {
    std::set<std::string> links;
    for (const PathFigures* p : compared_here)
      if (std::find(p->hosts.begin(), p->hosts.end(), host) != p->hosts.end()) links.insert(p->name);
    if (links.size() < 2 || !std::includes(short_paths.begin(), short_paths.end(), links.begin(), links.end())) continue;
    SharedWords& words = shared.emplace_back("every link of host " + host, std::vector<const Shortfall*>{});
    for (const Shortfall* s : short_here)
      if (links.count(s->path) > 0) words.second.push_back(s);
    explained.insert(links.begin(), links.end());
  }
  for (const Shortfall* s : short_here)
    if (explained.count(s->path) == 0) shared.push_back({path_with_hosts(*s), {s}});
  return shared;
}

}  // namespace

std::string ratio_text(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "x%.2f", ratio);
  return text;
}

SizeFigure figure_of_trials(double bytes, const std::vector<double>& rates, TrialsBy by) {
  std::vector<double> logs;
  for (double rate : rates)
    if (rate > 0 && std::isfinite(rate)) logs.push_back(std::log(rate));
  if (logs.empty()) return {bytes, 0, 0, 1};
  const double figure = by == TrialsBy::fastest ? *std::max_element(logs.begin(), logs.end()) : median_of(logs);
  return {bytes, std::exp(figure), spread_about_median(logs), 1};
}

SizeFigure figure_of_records(double bytes, const std::vector<double>& rates) {
  std::vector<double> logs;
  for (double rate : rates)
    if (rate > 0 && std::isfinite(rate)) logs.push_back(std::log(rate));
  if (logs.empty()) return {bytes, 0, 0, 0};
  return {bytes, std::exp(median_of(logs)), spread_about_median(logs), static_cast<int>(logs.size())};
}

std::vector<Shortfall> curve_shortfalls(const std::string& run, const PathFigures& measured,
                                        const PathFigures& reference, std::size_t in_a_row, double least_loss) {
  const std::vector<Matched> sizes = matched_sizes(measured, reference);
  std::vector<double> log_ratios;
  for (const Matched& size : sizes) log_ratios.push_back(size.log_ratio);
  const double scatter = scatter_along(log_ratios);
  std::vector<Shortfall> shortfalls, row;
  const auto end_row = [&] {
    if (row.size() >= in_a_row) shortfalls.insert(shortfalls.end(), row.begin(), row.end());
    row.clear();
  };
  for (const Matched& size : sizes) {
    const double bound = bound_of(size, scatter, least_loss);
    if (size.measured.rate < bound * size.reference.rate)
      row.push_back(shortfall_of(run, measured, size, bound));
    else
      end_row();
  }
  end_row();
  return shortfalls;
}

std::vector<Shortfall> cell_shortfalls(const std::string& run, const std::vector<PathFigures>& measured,
                                       const std::vector<PathFigures>& reference, bool same_launch, double least_loss) {
  // Each size on its own. How far the reference's cells scatter about each other there is what the
  // machine does to a cell's figure; the measured cells' scatter would count the loss itself where
  // one host's links are half the cells.
  std::map<double, std::vector<std::pair<std::size_t, Matched>>> by_size;
  for (std::size_t cell = 0; cell < measured.size() && cell < reference.size(); ++cell)
    for (const Matched& size : matched_sizes(measured[cell], reference[cell])) by_size[size.measured.bytes].push_back({cell, size});
  std::vector<Shortfall> shortfalls;
  for (const auto& [bytes, cells] : by_size) {
    std::vector<double> reference_logs;
    for (const auto& [cell, size] : cells) reference_logs.push_back(std::log(size.reference.rate));
    const double scatter = same_launch ? 0 : spread_about_median(reference_logs);
    std::vector<Shortfall> here;
    for (const auto& [cell, size] : cells)
      if (const double bound = bound_of(size, scatter, least_loss); size.measured.rate < bound * size.reference.rate)
        here.push_back(shortfall_of(run, measured[cell], size, bound));
    for (const Shortfall& s : here)
      if (std::any_of(here.begin(), here.end(), [&](const Shortfall& other) { return &other != &s && share_a_host(s, other); }))
        shortfalls.push_back(s);
  }
  return shortfalls;
}

std::vector<std::string> shared_shortfalls(const std::vector<Shortfall>& shortfalls,
                                           const std::vector<PathFigures>& compared) {
  std::map<double, std::vector<const Shortfall*>> by_size;
  for (const Shortfall& s : shortfalls) by_size[s.bytes].push_back(&s);
  // Each description with the sizes it holds at and the ratios there, in the order first met.
  std::vector<std::string> order;
  std::map<std::string, std::set<double>> sizes;
  std::map<std::string, std::pair<double, double>> ratios;
  for (const auto& [bytes, short_here] : by_size) {
    std::vector<const PathFigures*> compared_here;
    for (const PathFigures& path : compared)
      if (std::any_of(path.sizes.begin(), path.sizes.end(), [&](const SizeFigure& f) { return f.bytes == bytes; }))
        compared_here.push_back(&path);
    for (const auto& [words, standing_for] : shared_at_size(short_here, compared_here)) {
      if (sizes.count(words) == 0) {
        order.push_back(words);
        ratios[words] = {INFINITY, 0};
      }
      sizes[words].insert(bytes);
      for (const Shortfall* s : standing_for) {
        ratios[words].first = std::min(ratios[words].first, s->ratio);
        ratios[words].second = std::max(ratios[words].second, s->ratio);
      }
    }
  }
  std::vector<std::string> lines;
  for (const std::string& words : order) {
    const auto [low, high] = ratios[words];
    const std::string lowest = ratio_text(low), highest = ratio_text(high);
    const std::string range = lowest == highest ? lowest : lowest + " to " + highest;
    lines.push_back(words + ": " + sizes_text(sizes[words]) + " (" + range + " of the reference)");
  }
  return lines;
}

}  // namespace npgpu
