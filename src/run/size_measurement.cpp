#include "run/size_measurement.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "results/calibration.hpp"
#include "run/nvtx.hpp"

namespace npgpu {
namespace {

constexpr std::uint64_t kWindowProbeGrowth = 4;
constexpr std::uint64_t kRoundTripBytes = 8;
constexpr int kMaxResizes = 2;
constexpr std::uint64_t kResizeFactor = 16;    // a first trial this many times too short is sized again
constexpr std::uint64_t kLongTrialFactor = 4;  // and one this many times too long

// The tail (runs under load): at pingpong sizes up to 64 KiB, as GPCNeT times its 8 B latency,
// 1000 single repetitions or as many as fit in 0.2 s; none where fewer than 100 fit, or where one
// repetition lasts under 50 steps of the clock (its time would be the clock's, not the message's).
constexpr std::uint64_t kTailLargestBytes = 64 * 1024;
constexpr double kTailMessages = 1000;
constexpr double kTailLeastMessages = 100;
constexpr double kTailSeconds = 0.2;
constexpr double kResolvedSteps = 50;

// The nearest-rank 99th percentile.
double percentile_99(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(values.size())));
  return values.at(std::max<std::size_t>(rank, 1) - 1);
}

}  // namespace

void SizeMeasurement::start_sweep() {
  steps_.set_previous({});
  shortest_round_trip_ = kNone;
}

// Messages in this size's window: --window, or as many as last half a trial or 50 round trips
// at the previous size's time per message (window_to_fill). The first size, or one far above the
// last (8 B then 1 MiB in a matrix), times a window of one message of its own first, as part of
// its warm-up. The round trip is the shortest this sweep has timed: a pingpong, or a window of
// one small message and its ack, timed twice when none was (the first may carry a lazy connection).
std::uint64_t SizeMeasurement::choose_window(const Group& group, std::uint64_t bytes, Pattern pattern) {
  const bool windowed = module_.shape(pattern, bytes, 2).transfers_per_rep != module_.shape(pattern, bytes, 1).transfers_per_rep;
  if (options_.window_given || !windowed) return options_.window;
  const auto one_message = [&](std::uint64_t size) {
    return steps_.timed_reps(group, size, pattern, 1, 1, nullptr, "the warm-up");
  };
  if (shortest_round_trip_ == kNone) {
    const std::uint64_t small = std::min(bytes, kRoundTripBytes);
    const double first = one_message(small);
    shortest_round_trip_ = std::min(first, one_message(small));
  }
  const PreviousSize& previous = steps_.previous();
  double per_transfer = previous.seconds_per_transfer;
  if (previous.bytes == 0 || bytes > kWindowProbeGrowth * previous.bytes)
    per_transfer = one_message(bytes) / module_.shape(pattern, bytes, 1).transfers_per_rep;
  return window_to_fill(options_.calibration, options_.window, per_transfer, shortest_round_trip_, bytes);
}

SizeResult SizeMeasurement::measure(const Group& group, std::uint64_t bytes, Pattern pattern) {
  return measure(group, bytes, pattern, choose_window(group, bytes, pattern));
}

SizeResult SizeMeasurement::measure(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t window) {
  const Calibration& calibration = options_.calibration;
  SizeResult result;
  result.bytes = bytes;
  result.shape = module_.shape(pattern, bytes, window);
  // Warm-up: first-touch costs and lazy connections land here, never in a trial. It also
  // measures this size's time per repetition, from which the trials' repetitions follow.
  const PreviousSize& previous = steps_.previous();
  std::uint64_t reps = warmup_reps(calibration, previous.seconds_per_transfer * result.shape.transfers_per_rep,
                                   previous.bytes, bytes);
  double seconds_per_rep = steps_.timed_reps(group, bytes, pattern, reps, window, nullptr, "the warm-up");
  while (seconds_per_rep * static_cast<double>(reps) < calibration.trial_seconds / 8 && reps < calibration.max_reps) {
    reps = std::min(calibration.max_reps, reps * 4);
    seconds_per_rep = steps_.timed_reps(group, bytes, pattern, reps, window, nullptr, "the warm-up");
  }
  steps_.set_previous({bytes, seconds_per_rep, seconds_per_rep / result.shape.transfers_per_rep});
  if (pattern == Pattern::pingpong) shortest_round_trip_ = std::min(shortest_round_trip_, seconds_per_rep);

  result.reps = reps_to_fill(calibration, seconds_per_rep);
  const bool timer = contains(group.timers, steps_.team().rank());
  int resizes_left = kMaxResizes;
  std::uint64_t trial = 0;
  while (trial < options_.max_trials) {
    const NvtxRange range(options_.nvtx, "trial " + std::to_string(trial));
    TrialTiming timing;
    const double trial_seconds_per_rep =
        steps_.timed_reps(group, bytes, pattern, result.reps, window, &timing, "trial " + std::to_string(trial + 1));
    // A first trial far from --trial-time re-sizes the repetitions and counts as warm-up. Far
    // under: a warm-up of a few repetitions that met one hiccup (5 ms for a 7 us round trip, seen
    // with ranks sharing cores) sizes trials of 2 repetitions, each as noisy as one message. Far
    // over: the warm-up ran faster than the trials do (a stream of 1.5 KiB messages over shared
    // memory ran 6 times slower in its trials here, so each trial took 60 ms, not 10). Every rank
    // sees the same slowest time, so all decide alike.
    const std::uint64_t resized = reps_to_fill(calibration, trial_seconds_per_rep);
    const bool far_from_the_trial_time =
        resized > kResizeFactor * result.reps || result.reps > kLongTrialFactor * resized;
    if (trial == 0 && resizes_left > 0 && far_from_the_trial_time) {
      --resizes_left;
      result.reps = resized;
      continue;  // the first trial again, with the new repetitions
    }
    if (options_.check_data) steps_.check_data(group, bytes, pattern, trial);
    if (timer) {
      result.trial_seconds.push_back(timing.seconds);
      if (!std::isnan(timing.alt_seconds)) result.trial_alt_seconds.push_back(timing.alt_seconds);
      summarize_trials(result);
    }
    const bool enough = trial + 1 >= options_.min_trials;
    const bool another = !enough || (timer && !(result.precision <= options_.precision));
    if (!steps_.team().any(another, steps_.expect_collective(bytes, pattern, "the step that decides on another trial")))
      break;
    ++trial;
  }
  if (options_.tail && pattern == Pattern::pingpong && bytes <= kTailLargestBytes)
    measure_tail(group, result, window, seconds_per_rep);
  return result;
}

void SizeMeasurement::measure_tail(const Group& group, SizeResult& result, std::uint64_t window, double seconds_per_rep) {
  if (clock_steps_ == kNone)  // collective, once: every rank decides alike on the coarsest clock
    clock_steps_ = steps_.team().max(measure_resolution(steps_.clock()),
                                     steps_.expect_collective(result.bytes, Pattern::pingpong, "the clock's resolution"));
  const double messages = std::min(kTailMessages, std::floor(kTailSeconds / seconds_per_rep));
  if (messages < kTailLeastMessages || seconds_per_rep < kResolvedSteps * clock_steps_) return;
  const std::vector<double> seconds = steps_.timed_one_by_one(group, result.bytes, Pattern::pingpong,
                                                              static_cast<std::uint64_t>(messages), window, "the tail");
  if (seconds.empty()) return;
  std::vector<double> per_transfer;
  for (double one : seconds) per_transfer.push_back(one / result.shape.transfers_per_rep);
  result.tail_p99 = percentile_99(per_transfer);
  result.tail_messages = per_transfer.size();
}

}  // namespace npgpu
