#include "results/pair_matrix.hpp"

#include <algorithm>
#include <cmath>

#include "results/statistics.hpp"

namespace npgpu {

PairMatrix empty_matrix(int ranks, const std::vector<std::uint64_t>& bytes, const std::vector<Pattern>& patterns) {
  PairMatrix matrix;
  matrix.ranks = ranks;
  matrix.bytes = bytes;
  matrix.patterns = patterns;
  matrix.cells.assign(bytes.size(), std::vector<SizeResult>(static_cast<std::size_t>(ranks) * ranks));
  return matrix;
}

void classify_cells(PairMatrix& matrix) {
  const int n = matrix.ranks;
  matrix.classes.clear();
  matrix.cell_class.assign(static_cast<std::size_t>(n) * n, -1);
  for (int from = 0; from < n; ++from)
    for (int to = 0; to < n; ++to) {
      if (from == to) continue;
      const auto f = static_cast<std::size_t>(from), t = static_cast<std::size_t>(to);
      const bool one_host = matrix.rank_host.at(f) == matrix.rank_host.at(t);
      const int gpu_ends = (matrix.rank_gpu.at(f).empty() ? 0 : 1) + (matrix.rank_gpu.at(t).empty() ? 0 : 1);
      const char* buffers = gpu_ends == 2 ? "GPU buffers" : gpu_ends == 1 ? "host and GPU buffers" : "host buffers";
      const std::string name = std::string(one_host ? "one host, " : "two hosts, ") + buffers;
      auto found = std::find(matrix.classes.begin(), matrix.classes.end(), name);
      if (found == matrix.classes.end()) found = matrix.classes.insert(found, name);
      matrix.cell_class[static_cast<std::size_t>(from * n + to)] = static_cast<int>(found - matrix.classes.begin());
    }
}

double cell_throughput(const SizeResult& cell, Headline headline) {
  if (cell.trial_seconds.empty()) return std::nan("");
  return cell.throughput(headline_of(cell.time, headline));
}

std::vector<FlaggedLink> flag_slow_links(const PairMatrix& matrix, Headline headline) {
  const int n = matrix.ranks;
  const auto shift_of = [n](std::size_t cell) {
    return (static_cast<int>(cell) % n - static_cast<int>(cell) / n + n) % n;
  };
  std::vector<FlaggedLink> flagged;
  for (std::size_t size = 0; size < matrix.cells.size(); ++size) {
    const std::vector<SizeResult>& cells = matrix.cells[size];
    for (std::size_t klass = 0; klass < matrix.classes.size(); ++klass) {
      std::vector<double> rates, best_rates;
      std::vector<std::size_t> where;
      for (std::size_t cell = 0; cell < cells.size(); ++cell) {
        const double rate = cell_throughput(cells[cell], headline);
        if (matrix.cell_class[cell] != static_cast<int>(klass) || std::isnan(rate)) continue;
        rates.push_back(rate);
        best_rates.push_back(cells[cell].throughput(cells[cell].time.min));
        where.push_back(cell);
      }
      if (rates.empty()) continue;
      const double median = median_of(rates), best_median = median_of(best_rates);
      for (std::size_t i = 0; i < rates.size(); ++i) {
        if (rates[i] >= matrix.flag_below * median || best_rates[i] >= matrix.flag_below * best_median) continue;
        std::vector<double> shift_mates;
        for (std::size_t j = 0; j < rates.size(); ++j)
          if (j != i && shift_of(where[j]) == shift_of(where[i])) shift_mates.push_back(rates[j]);
        if (!shift_mates.empty() && rates[i] >= matrix.flag_below * median_of(shift_mates)) continue;
        flagged.push_back({size, static_cast<int>(where[i]) / n, static_cast<int>(where[i]) % n, rates[i], median});
      }
    }
  }
  return flagged;
}

}  // namespace npgpu
