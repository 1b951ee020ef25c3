#include <gtest/gtest.h>

#include <limits>

#include "results/calibration.hpp"

namespace npgpu {
namespace {

TEST(RepsToFill, FillsTheTrialTime) {
  const Calibration c{0.01, 1, 1'000'000'000};
  EXPECT_EQ(reps_to_fill(c, 1e-6), 10000u);
  EXPECT_EQ(reps_to_fill(c, 3e-6), 3333u);
  EXPECT_EQ(reps_to_fill(c, 0.004), 3u) << "2.5 rounds to the nearest count";
}

TEST(RepsToFill, NeverBelowTheMinimum) {
  const Calibration c{0.01, 2, 1000};
  EXPECT_EQ(reps_to_fill(c, 0.5), 2u);
}

TEST(RepsToFill, CappedAndSafeOnNonsense) {
  const Calibration c{0.01, 1, 1000};
  EXPECT_EQ(reps_to_fill(c, 1e-12), 1000u);
  EXPECT_EQ(reps_to_fill(c, 0.0), 1000u);
  EXPECT_EQ(reps_to_fill(c, std::numeric_limits<double>::quiet_NaN()), 1000u);
}

TEST(WarmupReps, AQuarterTrialPredictedFromThePreviousSize) {
  const Calibration c{0.01, 1, 1'000'000'000};
  // 1 us at 1000 B predicts at most 2 us at 2000 B: a quarter trial is 2.5 ms = 1250 reps.
  EXPECT_EQ(warmup_reps(c, 1e-6, 1000, 2000), 1250u);
  EXPECT_EQ(warmup_reps(c, 0.0, 0, 1), 1u) << "first size: nothing known yet";
  EXPECT_EQ(warmup_reps(c, 1.0, 1, 2), 1u);
}

TEST(WindowToFill, HalfATrialAtThePreviousSizesRate) {
  const Calibration c{0.01, 1, 1'000'000'000};
  const double round_trip = 2e-6;  // shared memory
  const std::uint64_t mb = 5'000'000;  // messages of 5 MB: 16 MiB is 4 of them
  EXPECT_EQ(window_to_fill(c, 64, 1e-6, round_trip, 5000), 64u) << "small messages: the cap";
  EXPECT_EQ(window_to_fill(c, 64, 1e-3, round_trip, mb), 5u) << "1 ms a message: 5 ms of them";
  EXPECT_EQ(window_to_fill(c, 64, 0.3e-3, round_trip, mb), 17u) << "rounded up, never under half a trial";
  EXPECT_EQ(window_to_fill(c, 64, 0.02, round_trip, 64 << 20), 1u) << "one message outlasts half a trial";
  EXPECT_EQ(window_to_fill(c, 64, 0.0, round_trip, mb), 64u) << "first size: nothing known yet";
  EXPECT_EQ(window_to_fill(c, 8, 1e-6, round_trip, 5000), 8u);
}

TEST(WindowToFill, FiftyRoundTripsWhereTheyOutlastHalfATrial) {
  const Calibration c{0.01, 1, 1'000'000'000};
  // An 8 ms round trip (a rate-limited link here): windows of 400 ms, so the ack costs 2%.
  EXPECT_EQ(window_to_fill(c, 64, 5e-3, 8e-3, 256 << 10), 64u) << "5 ms messages: 80 wanted, the cap";
  EXPECT_EQ(window_to_fill(c, 64, 84e-3, 8e-3, 4 << 20), 5u);
  EXPECT_EQ(window_to_fill(c, 64, 1.0, 8e-3, 64 << 20), 1u);
}

TEST(WindowToFill, SixteenMebibytesOutweighAShapersBurst) {
  const Calibration c{0.01, 1, 1'000'000'000};
  // 1 MiB at 50 MB/s: 21 ms, half a trial in one message, but a window of 16 of them.
  EXPECT_EQ(window_to_fill(c, 64, 21e-3, 50e-6, 1 << 20), 16u);
  EXPECT_EQ(window_to_fill(c, 64, 21e-3, 50e-6, 3 << 20), 6u) << "rounded up";
}

}  // namespace
}  // namespace npgpu
