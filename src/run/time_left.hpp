#pragma once
// How long a sweep still has to go, from what its finished sizes cost.
#include <cstdint>
#include <functional>
#include <vector>

#include "results/calibration.hpp"
#include "results/options.hpp"
#include "results/results.hpp"

namespace npgpu {

// A large size timed before the sweep: the rate its largest sizes reach.
struct Probe {
  double bytes_per_transfer = 0;
  double seconds_per_transfer = 0;  // 0: none
};

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
  double between_sizes = 0;   // what each finished size cost after its measurement, on average:
                              // gathering its results, the console, the record
};

// Seconds the sizes of `remaining` will take after the `done` sizes of the same sweep (one curve's).
// Each remaining size costs the warm-up and the trials the driver will run: trials as many as the
// finished sizes needed on average, or the last 16 sizes if more (the probe's few repetitions do not foretell them: on one GPU
// they foretold 20 where every size took 3, a sweep's estimate 2.6x too long until the probe's
// size was done; on mpi they foretold 3 where the sizes took 20), each as long as the trial time
// or one repetition, whichever is longer; a repetition is the window's messages (or the pattern's
// transfers), a message no faster than the last one finished nor than the best rate so far or the
// probe's (1 GB/s without one), from the probe's size up no faster than the probe's rate or, once
// the sweep is there, the last finished size's, and the host spends as much more per repetition than the module's
// timer saw as at the last sizes (the least of the last 3). What the finished sizes cost beyond
// that model (collective steps, the record) is added per size, and the plan's between_sizes.
double seconds_left_in_sweep(const std::vector<SizeResult>& done, const std::vector<std::uint64_t>& remaining,
                             const SweepPlan& plan);

// One round of measuring a finished size again (break_checks.hpp): a warm-up of a quarter of its
// `reps` repetitions (one at least) and a trial of them, at what a repetition cost the sweep by the
// wall clock (a GPU copy's host enqueues it more slowly than the copy runs: a 10 ms trial of 1 KiB
// device copies took the host 35 ms, and the module's own times had foretold 1.4 s of 3.6).
double seconds_of_a_round_again(const SizeResult& size, std::uint64_t reps);

// What choosing the sizes to measure again will take for a sweep of `sizes`, from `timed_seconds`
// for the first `timed_sizes` of it: the piece search (change_points.hpp) grows as the cube of the
// sizes (0.020 s for 80 sizes of a GPU copy's curve here, 0.147 s for its 159).
double seconds_to_choose_again(double timed_seconds, std::size_t timed_sizes, std::size_t sizes);

}  // namespace npgpu
