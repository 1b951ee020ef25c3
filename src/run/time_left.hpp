#pragma once
// How long a sweep still has to go, from what its finished sizes cost.
#include <cstdint>
#include <functional>
#include <vector>

#include "npgpu/calibration.hpp"
#include "npgpu/options.hpp"
#include "run/results.hpp"

namespace npgpu {

// A large size timed before the sweep: the rate its largest sizes reach, and the trials the stopping
// rule will take there, from how much a few repetitions of it varied.
struct Probe {
  double bytes_per_transfer = 0;
  double seconds_per_transfer = 0;  // 0: none
  double trials = 0;                // 0: unknown
  std::uint64_t bytes = 0;          // the size probed
};

// The trials --precision takes where `samples` repetitions gave their median a relative standard
// error of `error` (it falls as one over the square root of their number), between the fewest
// and the most.
double trials_for_precision(double error, std::size_t samples, double precision, std::uint64_t min_trials,
                            std::uint64_t max_trials);

// How the driver runs each size: the trial time, the fewest trials, the window rule, how the
// module divides a repetition of a size with a window into transfers (Module::shape), and the probe.
struct SweepPlan {
  Calibration calibration;
  std::uint64_t min_trials = 3;
  std::uint64_t window = 64;  // the cap (auto) or every size's window (--window)
  bool window_given = false;
  double round_trip = 0;      // the sweep's shortest, for the window rule
  std::function<TransferShape(std::uint64_t bytes, std::uint64_t window)> shape;
  Probe probe;
  double precision = 0.01;
  std::uint64_t max_trials = 20;
};

// Seconds the sizes of `remaining` will take after the `done` sizes of the same sweep (one curve's).
// Each remaining size costs the warm-up and the trials the driver will run: trials as many as the
// last finished sizes needed on average, going up to the probe's (where it foretells more) in
// proportion to the logarithm of the size (the stopping rule takes 3 trials at small sizes and 20
// at large ones on a noisy machine, and the large ones come last), each as long as the trial time
// or one repetition, whichever is longer; a repetition is the window's messages (or the pattern's
// transfers), a message no faster than the last one finished nor than the best rate so far or the
// probe's (1 GB/s without one), and the host spends as much more per repetition than the module's
// timer saw as at the last sizes (the least of the last 3). What the finished sizes cost beyond
// that model (collective steps, the record) is added per size.
double seconds_left_in_sweep(const std::vector<SizeResult>& done, const std::vector<std::uint64_t>& remaining,
                             const SweepPlan& plan);

}  // namespace npgpu
