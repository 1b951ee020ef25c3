#include "results/calibration.hpp"

#include <algorithm>
#include <cmath>

namespace npgpu {
namespace {

std::uint64_t clamp_reps(double reps, std::uint64_t low, std::uint64_t high) {
  if (!(reps >= static_cast<double>(low))) return low;  // also catches NaN
  if (reps >= static_cast<double>(high)) return high;
  return static_cast<std::uint64_t>(reps);
}

}  // namespace

std::uint64_t reps_to_fill(const Calibration& calibration, double seconds_per_rep) {
  if (!(seconds_per_rep > 0)) return calibration.max_reps;
  const double reps = std::round(calibration.trial_seconds / seconds_per_rep);
  return clamp_reps(reps, calibration.min_reps, calibration.max_reps);
}

std::uint64_t warmup_reps(const Calibration& calibration, double previous_seconds_per_rep,
                          std::uint64_t previous_bytes, std::uint64_t bytes) {
  const double growth = previous_bytes > 0 && bytes > previous_bytes
                            ? static_cast<double>(bytes) / static_cast<double>(previous_bytes)
                            : 1.0;
  const double predicted = previous_seconds_per_rep * growth;
  if (!(predicted > 0)) return 1;
  return clamp_reps(std::ceil(0.25 * calibration.trial_seconds / predicted), 1, calibration.max_reps);
}

std::uint64_t window_to_fill(const Calibration& calibration, std::uint64_t cap, double previous_seconds_per_transfer,
                             double round_trip_seconds, std::uint64_t message_bytes) {
  constexpr double kLeastBytes = 16 << 20;
  if (!(previous_seconds_per_transfer > 0) || message_bytes == 0) return cap;
  const double window_seconds = std::max(0.5 * calibration.trial_seconds, 50 * round_trip_seconds);
  const double messages = std::max(window_seconds / previous_seconds_per_transfer,
                                   kLeastBytes / static_cast<double>(message_bytes));
  return clamp_reps(std::ceil(messages), 1, cap);
}

}  // namespace npgpu
