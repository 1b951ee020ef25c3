#pragma once
// Curves made from a model of the time per transfer, with trials as a noisy machine gives them,
// for the tests of Hockney's fit and of the change points.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "results/schedule.hpp"

namespace npgpu::test {

// The sizes of a default sweep from 1 B to `upper`: NetPIPE's n and 1.5 n, with n-3 and n+3.
inline std::vector<double> netpipe_sizes(std::uint64_t upper = 8 * 1024 * 1024) {
  std::vector<double> sizes;
  for (std::uint64_t n : make_schedule({1, upper, 3, false})) sizes.push_back(static_cast<double>(n));
  return sizes;
}

struct SyntheticCurve {
  std::vector<double> bytes, seconds;       // seconds: each size's median trial, the headline
  std::vector<std::vector<double>> trials;  // time per transfer of each trial
};

struct Noise {
  double between = 0;  // each size off the model by a factor exp(N(0, between)), all its trials alike
  double within = 0;   // each trial slowed by a share drawn from an exponential of this mean
  int trials = 5;
};

// As a quiet launch here: sizes 1.5% off the curve, trials slowed by 2% on average.
constexpr Noise kQuiet{0.015, 0.02, 5};

// model(n) at each size of `sizes`, with `noise`; `seed` makes it repeatable.
inline SyntheticCurve synthetic_curve(const std::function<double(double)>& model, Noise noise, unsigned seed,
                                      const std::vector<double>& sizes = netpipe_sizes()) {
  SyntheticCurve curve;
  std::mt19937 random(seed);
  std::normal_distribution<double> between(0, noise.between);
  std::exponential_distribution<double> within(noise.within > 0 ? 1 / noise.within : 1);
  for (double n : sizes) {
    const double level = model(n) * std::exp(noise.between > 0 ? between(random) : 0);
    std::vector<double> trials;
    for (int t = 0; t < noise.trials; ++t) trials.push_back(level * (1 + (noise.within > 0 ? within(random) : 0)));
    std::vector<double> sorted = trials;
    std::sort(sorted.begin(), sorted.end());
    curve.bytes.push_back(n);
    curve.seconds.push_back(sorted[sorted.size() / 2]);
    curve.trials.push_back(trials);
  }
  return curve;
}

// t(n) = alpha + n / beta.
inline std::function<double(double)> hockney(double alpha, double beta) {
  return [=](double n) { return alpha + n / beta; };
}

// One model below `at`, another from there.
inline std::function<double(double)> switching(std::function<double(double)> below, double at,
                                               std::function<double(double)> from) {
  return [=](double n) { return n < at ? below(n) : from(n); };
}

}  // namespace npgpu::test
