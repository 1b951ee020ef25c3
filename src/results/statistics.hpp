#pragma once
// Pure functions over a set of per-trial samples (Google Benchmark keeps these apart too).
#include <cstddef>
#include <span>

namespace npgpu {

struct Summary {
  double min = 0, median = 0, mean = 0, max = 0;
  double stddev = 0;  // sample standard deviation (n-1); 0 for a single sample
  std::size_t count = 0;
};

Summary summarize(std::span<const double> samples);

// The median alone; 0 for no samples, as in summarize().
double median_of(std::span<const double> samples);

// The standard error of the median relative to the median, estimated robustly from the median
// absolute deviation: 1.2533 * 1.4826 * MAD / sqrt(n) / median. Infinite for fewer than 2 samples.
// The driver stops adding trials to a size once this is inside --precision.
double median_relative_error(std::span<const double> samples);

enum class Headline { median, min, mean };
double headline_of(const Summary& summary, Headline headline);
const char* headline_name(Headline headline);

}  // namespace npgpu
