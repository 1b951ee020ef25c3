#include "run/time_left.hpp"

#include <algorithm>
#include <cmath>

#include "results/statistics.hpp"

namespace npgpu {
namespace {

constexpr double kRateWithoutProbe = 1e9;  // bytes per second: a guess, so that the first, latency-bound
                                           // sizes do not predict hours for the last ones
constexpr std::size_t kHostSizes = 3;      // whose host clocks say the host's extra per repetition
constexpr std::size_t kRecentSizes = 16;   // whose trials, on average, the sizes left take at least

// A size in the model: its warm-up (a quarter trial, or one repetition when that is longer) and
// `trials` trials, each the trial time or one repetition when that is longer, by the module's
// timer; the host spends `host_extra` more per repetition than that timer saw (a GPU copy's
// enqueue cost beside its cudaEvent time: a 2 us copy costs the host 7 us).
double modelled_cost(double trial_seconds, double rep_seconds, double host_extra, double trials) {
  const double timed = trials * std::max(trial_seconds, rep_seconds) + std::max(0.25 * trial_seconds, rep_seconds);
  return timed * (rep_seconds + host_extra) / rep_seconds;
}

// What the host clock saw a repetition take beyond the module's timer, where the module keeps both.
double host_extra_per_rep(const SizeResult& size) {
  if (size.trial_alt_seconds.empty()) return 0;
  const double host = summarize(size.trial_alt_seconds).median / static_cast<double>(size.reps);
  return std::max(0.0, host - size.time.median * size.shape.transfers_per_rep);
}

// Where the last `count` sizes of `done` begin.
std::size_t first_of_last(const std::vector<SizeResult>& done, std::size_t count) {
  return done.size() > count ? done.size() - count : 0;
}

// The trials the sweep's finished sizes took, on average, and at least the fewest allowed. Every
// finished size counts alike: on a noisy machine a size takes 3 trials or 20 as bursts of noise
// come and go, so the more sizes the mean takes in, the less one burst moves the sizes left.
// Replayed over 18 default mpi sweeps here (6 each of pingpong, stream and bidir), the median
// sweep's worst tenth fell from 77% with the trimmed mean of the last 8 sizes to 48%; on a GPU,
// where every size takes 3 but the odd one 9, that one size moves the estimate by its share.
// But the mean of the last kRecentSizes is the floor: a sweep's later sizes hold fewer
// repetitions a trial, each carrying more of the noise, and take more trials (the most, 20, at 52%
// of the second half's sizes in 3 default mpi pingpong sweeps here, at 28% of the first's). Replayed over 12 default sweeps here (3 each of
// mpi pingpong, stream, bidir and tcp), the tenths outside 25% fell from 47 of 108 to 31.
double mean_trials(const std::vector<SizeResult>& done, std::uint64_t min_trials) {
  const auto mean_from = [&](std::size_t first) {
    double sum = 0;
    for (std::size_t i = first; i < done.size(); ++i) sum += static_cast<double>(done[i].trial_seconds.size());
    return sum / static_cast<double>(done.size() - first);
  };
  return std::max({static_cast<double>(min_trials), mean_from(0), mean_from(first_of_last(done, kRecentSizes))});
}

// The host's extra per repetition: the least of the last kHostSizes sizes'. A stall only adds to a
// host clock, so one size whose clock caught one (a GPU copy of 256 MiB, 4.9 ms, seen taking the
// host 14 ms) does not triple every size left; and the least of a few follows the extra down the
// small sizes, where it falls (d2d: 5.5 us at 1 B, 4.1 us at 45 B) and a median of 8 lagged
// (replayed over 68 GPU sweeps' records: worst tenths up to 25% so, 26% from the last size alone,
// 34% from the median of 8).
double recent_host_extra(const std::vector<SizeResult>& done) {
  const std::size_t first = first_of_last(done, kHostSizes);
  double least = host_extra_per_rep(done[first]);
  for (std::size_t i = first + 1; i < done.size(); ++i) least = std::min(least, host_extra_per_rep(done[i]));
  return least;
}

// The rate a remaining message of `bytes` moves at, at most. From the probe's size up, the probe's
// rate, or once the sweep has reached that size the last finished size's: the fastest size so far
// is often one that fits a cache (mpi stream here: 4.1 GB/s at 96 KiB, 0.9 to 1.1 GB/s from 4 MiB),
// and foretelling 64 MiB at it had the time left at 0.4 to 0.6 of the truth through the sweep's
// costliest tenths. Below the probe's size, the fastest rate so far or the probe's.
double rate_at_most(double bytes, const SizeResult& last, const Probe& probe, double best_rate) {
  if (probe.seconds_per_transfer <= 0 || bytes < probe.bytes_per_transfer) return best_rate;
  if (last.shape.bytes_per_transfer >= probe.bytes_per_transfer) return last.throughput(last.time.median);
  return probe.bytes_per_transfer / probe.seconds_per_transfer;
}

}  // namespace

double seconds_left_in_sweep(const std::vector<SizeResult>& done, const std::vector<std::uint64_t>& remaining,
                             const SweepPlan& plan) {
  if (done.empty() || remaining.empty()) return 0;
  const double trial = plan.calibration.trial_seconds;
  double beyond_model = 0;
  double best_rate = plan.probe.seconds_per_transfer > 0 ? plan.probe.bytes_per_transfer / plan.probe.seconds_per_transfer
                                                        : kRateWithoutProbe;
  for (const SizeResult& size : done) {
    const auto kept = static_cast<double>(size.trial_seconds.size());
    beyond_model += size.wall_seconds -
                    modelled_cost(trial, size.time.median * size.shape.transfers_per_rep, host_extra_per_rep(size), kept);
    best_rate = std::max(best_rate, size.throughput(size.time.median));
  }
  beyond_model /= static_cast<double>(done.size());
  const double trials = mean_trials(done, plan.min_trials);

  double left = 0;
  double previous_transfer = done.back().time.median;
  const double host_extra = recent_host_extra(done);
  for (std::uint64_t bytes : remaining) {
    const std::uint64_t window =
        plan.window_given ? plan.window : window_to_fill(plan.calibration, plan.window, previous_transfer, plan.round_trip, bytes);
    const TransferShape shape = plan.shape(bytes, window);
    const double rate = rate_at_most(shape.bytes_per_transfer, done.back(), plan.probe, best_rate);
    const double transfer = std::max(previous_transfer, shape.bytes_per_transfer / rate);
    left += std::max(0.0, modelled_cost(trial, transfer * shape.transfers_per_rep, host_extra, trials) + beyond_model) +
            plan.between_sizes;
    previous_transfer = transfer;
  }
  return left;
}

double seconds_of_a_round_again(const SizeResult& size, std::uint64_t reps) {
  const auto all = static_cast<double>(reps);
  const double warm_up = std::max(1.0, std::floor(all / 4));
  const double swept = static_cast<double>(size.trial_seconds.size()) * all + warm_up;
  return size.wall_seconds * (all + warm_up) / swept;
}

double seconds_to_choose_again(double timed_seconds, std::size_t timed_sizes, std::size_t sizes) {
  if (timed_sizes == 0) return 0;
  const double scale = static_cast<double>(sizes) / static_cast<double>(timed_sizes);
  return timed_seconds * scale * scale * scale;
}

}  // namespace npgpu
