#include <gtest/gtest.h>

#include "run/time_left.hpp"

namespace npgpu {
namespace {

// A finished stream size: `trials` trials, `transfer` seconds a message, `wall` seconds in all.
SizeResult finished(std::uint64_t bytes, double transfer, std::size_t trials, double wall, double window = 64) {
  SizeResult size;
  size.bytes = bytes;
  size.shape = {window, static_cast<double>(bytes)};
  size.trial_seconds.assign(trials, 0.01);
  size.time.median = transfer;
  size.wall_seconds = wall;
  return size;
}

SweepPlan stream_plan(std::uint64_t window, bool given) {
  return {{0.01, 1, 1'000'000'000}, 3, window, given, 2e-6, [](std::uint64_t bytes, std::uint64_t w) {
            return TransferShape{static_cast<double>(w), static_cast<double>(bytes)};
          },
          {}};
}

TEST(SecondsLeft, SizesOfTheTrialTimeCostWhatTheFinishedOnesDid) {
  // 3 trials of 10 ms and a quarter-trial warm-up are 32.5 ms; these sizes also spent 2.5 ms more.
  const std::vector<SizeResult> done{finished(8, 1e-6, 3, 0.035), finished(16, 1e-6, 3, 0.035)};
  const std::vector<std::uint64_t> remaining(10, 32);
  EXPECT_NEAR(seconds_left_in_sweep(done, remaining, stream_plan(64, false)), 10 * 0.035, 1e-9);
}

TEST(SecondsLeft, CountsTheTrialsTheFinishedSizesNeeded) {
  const std::vector<SizeResult> done{finished(8, 1e-6, 9, 0.0925), finished(16, 1e-6, 3, 0.0325)};
  // 6 trials on average: 6 x 10 ms + 2.5 ms, and the 2.5 ms the finished sizes spent beyond it... none here.
  EXPECT_NEAR(seconds_left_in_sweep(done, {32}, stream_plan(64, false)), 0.0625, 1e-9);
}

TEST(SecondsLeft, AFixedWindowOfLargeMessagesOutlastsTheTrial) {
  // 1 MB at 1 GB/s: 1 ms a message, a window of 64 is 64 ms, so every trial and the warm-up take 64 ms.
  const std::vector<SizeResult> done{finished(1'000'000, 1e-3, 3, 4 * 0.064, 64)};
  EXPECT_NEAR(seconds_left_in_sweep(done, {1'000'000}, stream_plan(64, true)), 4 * 0.064, 1e-9);
  // The auto window holds 17 such messages (16 MiB, more than half a trial's 5): 17 ms repetitions.
  const std::vector<SizeResult> auto_done{finished(1'000'000, 1e-3, 3, 4 * 0.017, 17)};
  EXPECT_NEAR(seconds_left_in_sweep(auto_done, {1'000'000}, stream_plan(64, false)), 4 * 0.017, 1e-9);
}

TEST(SecondsLeft, LargerSizesNoFasterThanTheBestRateSoFar) {
  // 2 GB/s so far, 8 ms a 16 MB message: windows of one from here on, and 64 MB takes 32 ms a
  // message, so the warm-up and each of the 3 trials are one message.
  const std::vector<SizeResult> done{finished(16'000'000, 8e-3, 3, 0.038, 1)};
  EXPECT_NEAR(seconds_left_in_sweep(done, {64'000'000}, stream_plan(64, false)), 4 * 0.032, 1e-9);
}

TEST(SecondsLeft, TheProbeForetellsTheLargestSizes) {
  // Only 8 B done (1 us), but a 64 MB message took 12.8 ms before the sweep: a 64 MB round trip is
  // 25.6 ms, so its warm-up and 3 trials take 4 of them.
  SweepPlan pingpong = stream_plan(64, false);
  pingpong.shape = [](std::uint64_t bytes, std::uint64_t) { return TransferShape{2, static_cast<double>(bytes)}; };
  pingpong.probe = {64e6, 12.8e-3};
  SizeResult first = finished(8, 1e-6, 3, 0.0325);
  first.shape = {2, 8};
  EXPECT_NEAR(seconds_left_in_sweep({first}, {64'000'000}, pingpong), 4 * 0.0256, 1e-9);
}

TEST(SecondsLeft, FromTheProbesSizeUpNotTheFastestSizeSoFarButTheProbeOrTheLastSize) {
  // 4 GB/s at a size a cache holds; the probe moved 16 MB at 1 GB/s: 64 MB takes 64 ms a message
  // (windows of one), not the 16 ms the cache's rate would say.
  SweepPlan plan = stream_plan(1, true);
  plan.probe = {16e6, 16e-3};
  const std::vector<SizeResult> cached{finished(100'000, 25e-6, 3, 0.0325, 1)};
  EXPECT_NEAR(seconds_left_in_sweep(cached, {64'000'000}, plan), 4 * 0.064, 1e-9);
  // Below the probe's size the fastest rate so far still bounds it: 12 MB at 4 GB/s is 3 ms, under
  // a trial (at the probe's rate it would outlast one: 12 ms): 3 trials and a warm-up of one message.
  EXPECT_NEAR(seconds_left_in_sweep(cached, {12'000'000}, plan), 3 * 0.01 + 0.003, 1e-9);
  // Once the sweep has reached the probe's size, its last size's rate (0.5 GB/s) foretells the rest.
  const std::vector<SizeResult> reached{finished(16'000'000, 32e-3, 3, 4 * 0.032, 1)};
  EXPECT_NEAR(seconds_left_in_sweep(reached, {64'000'000}, plan), 4 * 0.128, 1e-9);
}

TEST(SecondsLeft, EveryFinishedSizesTrialsCountAlike) {
  // Twelve sizes: the first four took 20 trials, the last eight 3; the next sizes take their mean.
  std::vector<SizeResult> done;
  for (int i = 0; i < 12; ++i) done.push_back(finished(8, 1e-6, i < 4 ? 20 : 3, i < 4 ? 0.2025 : 0.0325));
  // Every size cost exactly its trials and warm-up, so nothing is added beyond the model.
  EXPECT_NEAR(seconds_left_in_sweep(done, {16}, stream_plan(64, false)), (4 * 20 + 8 * 3) / 12.0 * 0.01 + 0.0025, 1e-9);
}

TEST(SecondsLeft, OneSizeThatTookManyTrialsMovesTheTrialsLeftByItsShare) {
  // Forty sizes took 3 trials but one took 9 (a burst of noise), long enough ago that the last 16
  // sizes took 3 each: one forty-first of the difference.
  std::vector<SizeResult> done;
  for (int i = 0; i < 41; ++i) done.push_back(finished(8, 1e-6, i == 20 ? 9 : 3, i == 20 ? 0.0925 : 0.0325));
  EXPECT_NEAR(seconds_left_in_sweep(done, {16}, stream_plan(64, false)), (40 * 3 + 9) / 41.0 * 0.01 + 0.0025, 1e-9);
  // Never fewer than the fewest the driver runs, whatever the sizes took.
  SweepPlan five = stream_plan(64, false);
  five.min_trials = 5;
  EXPECT_NEAR(seconds_left_in_sweep(done, {16}, five), 5 * 0.01 + 0.0025, 1e-9);
}

TEST(SecondsLeft, TheSizesLeftTakeAtLeastTheTrialsOfTheLastSixteen) {
  // Forty sizes took 3 trials, then sixteen took 20 (the sweep's larger sizes, fewer repetitions a
  // trial, more noise in each): the sizes left take 20, not the sweep's mean of 7.9.
  std::vector<SizeResult> done;
  for (int i = 0; i < 56; ++i) done.push_back(finished(8, 1e-6, i < 40 ? 3 : 20, i < 40 ? 0.0325 : 0.2025));
  EXPECT_NEAR(seconds_left_in_sweep(done, {16}, stream_plan(64, false)), 20 * 0.01 + 0.0025, 1e-9);
  // One more size of 3 trials, and the last sixteen's mean falls by its share.
  done.push_back(finished(8, 1e-6, 3, 0.0325));
  EXPECT_NEAR(seconds_left_in_sweep(done, {16}, stream_plan(64, false)), (15 * 20 + 3) / 16.0 * 0.01 + 0.0025, 1e-9);
}

TEST(SecondsLeft, OneSizeWhoseHostClockStalledDoesNotSetTheHostsExtra) {
  // GPU copies of 1 ms by the module's timer, 10 to a trial: the host clock saw 2 ms a repetition at
  // seven sizes and 6 ms at the last. The sizes left cost what the seven did: 3 trials and a
  // quarter-trial warm-up, 32.5 ms, times 2 ms over 1 ms; each finished size cost just that.
  SweepPlan plan = stream_plan(1, true);
  plan.probe = {1e9, 1e-9};
  std::vector<SizeResult> done;
  for (int i = 0; i < 8; ++i) {
    const double host_per_rep = i < 7 ? 2e-3 : 6e-3;
    SizeResult size = finished(1'000'000, 1e-3, 3, 0.0325 * host_per_rep / 1e-3, 1);
    size.reps = 10;
    size.trial_alt_seconds.assign(3, 10 * host_per_rep);
    done.push_back(size);
  }
  EXPECT_NEAR(seconds_left_in_sweep(done, {1'000'000}, plan), 0.0325 * 2, 1e-9);
}

TEST(SecondsLeft, EachSizeLeftCostsWhatTheFinishedOnesCostBetweenTheirMeasurements) {
  // 35 ms a size measuring, as in the first test, and 4 ms after each (the results gathered, the
  // console, the record; a GPU copy's sweep here spent 0.58 s so over 159 sizes of 8.1 s).
  SweepPlan plan = stream_plan(64, false);
  plan.between_sizes = 0.004;
  const std::vector<SizeResult> done{finished(8, 1e-6, 3, 0.035), finished(16, 1e-6, 3, 0.035)};
  EXPECT_NEAR(seconds_left_in_sweep(done, std::vector<std::uint64_t>(10, 32), plan), 10 * (0.035 + 0.004), 1e-9);
}

TEST(SecondsOfARoundAgain, AWarmUpAndATrialAtWhatTheSweepsRepetitionsCostByTheWallClock) {
  // 1 KiB device copies: 5000 to a 10 ms trial by the GPU's clock, 3 trials and a warm-up of 1250
  // that took the host 0.1138 s in all (7 us a copy): a round again is 6250 of them, 43.75 ms, where
  // the GPU's clock would say 12.5 ms.
  SizeResult size = finished(1024, 2e-6, 3, 0.11375, 1);
  EXPECT_NEAR(seconds_of_a_round_again(size, 5000), 0.04375, 1e-9);
  // One repetition a trial (a large size): the warm-up is one repetition too.
  EXPECT_NEAR(seconds_of_a_round_again(finished(1 << 30, 0.1, 3, 0.4, 1), 1), 0.2, 1e-9);
}

TEST(SecondsToChooseAgain, GrowsAsTheCubeOfTheSizes) {
  EXPECT_NEAR(seconds_to_choose_again(0.02, 80, 160), 0.16, 1e-12);
  EXPECT_NEAR(seconds_to_choose_again(0.15, 159, 159), 0.15, 1e-12);
  EXPECT_EQ(seconds_to_choose_again(0, 0, 159), 0) << "not timed yet";
}

TEST(SecondsLeft, NothingLeftOrNothingDone) {
  EXPECT_EQ(seconds_left_in_sweep({finished(8, 1e-6, 3, 0.035)}, {}, stream_plan(64, false)), 0);
  EXPECT_EQ(seconds_left_in_sweep({}, {8}, stream_plan(64, false)), 0);
}

}  // namespace
}  // namespace npgpu
