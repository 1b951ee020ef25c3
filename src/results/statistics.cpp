#include "results/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace npgpu {
namespace {

double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

std::vector<double> sorted_copy(std::span<const double> samples) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

}  // namespace

Summary summarize(std::span<const double> samples) {
  Summary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  const std::vector<double> sorted = sorted_copy(samples);
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = median_of_sorted(sorted);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.count);
  if (s.count > 1) {
    double squares = 0;
    for (double x : sorted) squares += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  return s;
}

double median_of(std::span<const double> samples) {
  return samples.empty() ? 0 : median_of_sorted(sorted_copy(samples));
}

double median_relative_error(std::span<const double> samples) {
  if (samples.size() < 2) return std::numeric_limits<double>::infinity();
  const std::vector<double> sorted = sorted_copy(samples);
  const double median = median_of_sorted(sorted);
  std::vector<double> deviations;
  deviations.reserve(sorted.size());
  for (double x : sorted) deviations.push_back(std::fabs(x - median));
  std::sort(deviations.begin(), deviations.end());
  // 1.4826 * MAD estimates the standard deviation of normal data; the median's standard error is
  // sqrt(pi/2) = 1.2533 times the mean's.
  const double sigma = 1.4826 * median_of_sorted(deviations);
  const double standard_error = 1.2533 * sigma / std::sqrt(static_cast<double>(sorted.size()));
  return median > 0 ? standard_error / median : std::numeric_limits<double>::infinity();
}

double headline_of(const Summary& summary, Headline headline) {
  switch (headline) {
    case Headline::min: return summary.min;
    case Headline::mean: return summary.mean;
    case Headline::median: break;
  }
  return summary.median;
}

const char* headline_name(Headline headline) {
  switch (headline) {
    case Headline::min: return "min";
    case Headline::mean: return "mean";
    case Headline::median: break;
  }
  return "median";
}

}  // namespace npgpu
