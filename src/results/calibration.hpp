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

// Messages in one stream or bidir window when --window does not fix it: at most `cap`, and enough
// to last half a trial or 50 round trips, whichever is longer, and to hold 16 MiB. A message takes
// at least as long as one of the previous size did (time never falls as messages grow), so the
// window holds the bytes the path moves in that time at the previous size's rate: the ack's round
// trip costs at most 2% (a bandwidth-delay product covered 50 times), and where round trips are
// short, as inside a node or a cluster, a size costs about its trials. The 16 MiB outweigh the
// burst a token-bucket shaper lets through at line rate after an idle moment (Linux tbf's 256 KiB
// here: a 1 MiB window read 1.3x the shaped rate), and cost 3 ms at 5 GB/s. `cap` before any size
// was timed.
std::uint64_t window_to_fill(const Calibration& calibration, std::uint64_t cap, double previous_seconds_per_transfer,
                             double round_trip_seconds, std::uint64_t message_bytes);

}  // namespace npgpu
