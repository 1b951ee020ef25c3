#pragma once
// How many repetitions fill a trial, from a measured time per repetition.
#include <cstdint>

namespace npgpu {

struct Calibration {
  double trial_seconds = 0.01;  // target length of one timed trial
  std::uint64_t min_reps = 1;
  std::uint64_t max_reps = 1'000'000'000;
};

// Repetitions whose total time is closest to the target without going under min_reps.
std::uint64_t reps_to_fill(const Calibration& calibration, double seconds_per_rep);

// Warm-up repetitions for a size: about a quarter of a trial, predicted from the previous size's
// time per repetition (its time scaled by the size ratio, since time grows no faster than size).
std::uint64_t warmup_reps(const Calibration& calibration, double previous_seconds_per_rep,
                          std::uint64_t previous_bytes, std::uint64_t bytes);

// Messages in one stream or bidir window when --window does not fix it: at most `cap`, and no
// more than keep the window about half a trial long. A message takes at least as long as one of
// the previous size did (time never falls as messages grow), so the window holds the bytes the
// path moved in half a trial at the previous size's rate: it follows the path's own speed, lasts
// at least half a trial (hundreds of round trips: a bandwidth-delay product covered many times
// over), and a size costs about its trials. `cap` before any size was timed.
std::uint64_t window_to_fill(const Calibration& calibration, std::uint64_t cap,
                             double previous_seconds_per_transfer);

}  // namespace npgpu
