// Breaks measured again (ChangePoints, as their detection: the sanitized pass leaves them out with
// it, run-tests.sh says why): a switch (a step with the size) repeats when its sizes are measured in
// turn and is told; a step the machine made along the sweep (every size from one moment on slower,
// and still so when the sizes are measured again) does not, and is withdrawn, seed after seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "report/break_checks.hpp"
#include "report/change_points.hpp"
#include "report/set_switches.hpp"
#include "synthetic_curve.hpp"

namespace npgpu {
namespace {

using test::hockney;
using test::kQuiet;
using test::switching;
using test::synthetic_curve;
using test::SyntheticCurve;

constexpr unsigned kSeeds = 20;
constexpr double kSwitchAt = 16381;  // NetPIPE's 16 KiB - 3
const auto kBelow = hockney(2e-6, 5e9);
const auto kRendezvous = hockney(6e-6, 5e9);  // a handshake from 16 KiB: x2 there

// What measuring again gives: `model` at the sizes `indices` names, kRecheckRounds trials each,
// each slowed by a share drawn from an exponential of mean `noise` (a little, by default).
std::vector<std::vector<double>> measured_again(const SyntheticCurve& c, const std::vector<std::size_t>& indices,
                                                const std::function<double(double)>& model, unsigned seed,
                                                double noise = 0.02) {
  std::mt19937 random(seed + 1000);
  std::exponential_distribution<double> within(1 / noise);
  std::vector<std::vector<double>> again(c.bytes.size());
  for (std::size_t i : indices)
    for (std::size_t round = 0; round < kRecheckRounds; ++round) again[i].push_back(model(c.bytes[i]) * (1 + within(random)));
  return again;
}

std::vector<double> fastest(const SyntheticCurve& c) { return size_levels(c.bytes, c.trials).fastest; }

// The sizes the driver measures again for the curve's breaks, with the path's `settings`.
std::vector<std::size_t> sizes_to_recheck(const SyntheticCurve& c, std::span<const SettingSides> settings = {}) {
  return sizes_to_measure_again(c.bytes, c.seconds, c.trials, settings);
}

// A stretch of sizes slower than the sizes after it (the machine slowed them for a moment) is
// measured again, those sizes and no other; a healthy curve, whose time grows with the size, has none.
TEST(ChangePoints, SizesSlowerThanALargerOneAreMeasuredAgain) {
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    SyntheticCurve c = synthetic_curve(kBelow, kQuiet, seed);
    EXPECT_TRUE(slower_than_a_larger_size(fastest(c)).empty()) << "seed " << seed;
    std::vector<std::size_t> slowed;
    for (std::size_t i = 0; i < c.bytes.size(); ++i)
      if (c.bytes[i] >= 13 && c.bytes[i] <= 27) {
        for (double& t : c.trials[i]) t *= 3;
        slowed.push_back(i);
      }
    EXPECT_EQ(slower_than_a_larger_size(fastest(c)), slowed) << "seed " << seed;
    const std::vector<std::size_t> again = sizes_to_recheck(c);
    for (std::size_t i : slowed) EXPECT_NE(std::find(again.begin(), again.end(), i), again.end()) << c.bytes[i];
  }
}

TEST(ChangePoints, TheSizesMeasuredAgainFlankTheBreak) {
  const SyntheticCurve c = synthetic_curve(switching(kBelow, kSwitchAt, kRendezvous), kQuiet, 1);
  const HockneyAnalysis found = analyse_hockney(c.bytes, c.seconds, c.trials);
  ASSERT_EQ(found.breaks.size(), 1u);
  const CurveBreak& cut = found.breaks[0];
  const std::vector<std::size_t> sizes = recheck_indices(cut, c.bytes, fastest(c));
  ASSERT_GE(sizes.size(), 3u);
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_EQ(std::count(sizes.begin(), sizes.end(), cut.index - 1), 1) << "the size next to it before";
  EXPECT_EQ(std::count(sizes.begin(), sizes.end(), cut.index), 1) << "the size next to it after";
  for (std::size_t i : sizes) {
    EXPECT_GE(c.bytes[i] * kNearby, c.bytes[cut.index]) << "within reach: " << c.bytes[i];
    EXPECT_LE(c.bytes[i], kRecheckReach * c.bytes[cut.index - 1]) << "within reach: " << c.bytes[i];
  }
}

TEST(ChangePoints, ASwitchRepeatsAndIsTold) {
  const auto model = switching(kBelow, kSwitchAt, kRendezvous);
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const SyntheticCurve c = synthetic_curve(model, kQuiet, seed);
    const auto again = measured_again(c, sizes_to_recheck(c), model, seed);
    const HockneyAnalysis a = analyse_hockney(c.bytes, c.seconds, c.trials, again);
    ASSERT_EQ(a.breaks.size(), 1u) << "seed " << seed;
    EXPECT_EQ(a.breaks[0].bytes, kSwitchAt) << "seed " << seed;
    EXPECT_NEAR(a.breaks[0].step_again, a.breaks[0].step_swept, 0.2) << "seed " << seed;
    EXPECT_GT(a.breaks[0].step_again, kLeastRepeat);
    EXPECT_TRUE(a.withdrawn.empty()) << "seed " << seed;
  }
}

TEST(ChangePoints, AStepTheMachineMadeIsWithdrawn) {
  // From 16 KiB on the sweep ran on a machine 1.6 times slower, and it still was when the sizes
  // were measured again: measured in turn, both sides are slow alike.
  const auto slowed = [](double n) { return 1.6 * kBelow(n); };
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const SyntheticCurve c = synthetic_curve(switching(kBelow, kSwitchAt, slowed), kQuiet, seed);
    const std::vector<std::size_t> sizes = sizes_to_recheck(c);
    ASSERT_FALSE(sizes.empty()) << "seed " << seed << ": the sweep alone shows the step";
    const HockneyAnalysis a = analyse_hockney(c.bytes, c.seconds, c.trials, measured_again(c, sizes, slowed, seed));
    EXPECT_TRUE(a.breaks.empty()) << "seed " << seed;
    ASSERT_EQ(a.withdrawn.size(), 1u) << "seed " << seed;
    EXPECT_NEAR(a.withdrawn[0].step_swept, 1.6, 0.15) << "seed " << seed;
    EXPECT_NEAR(a.withdrawn[0].step_again, 1, 0.08) << "seed " << seed;
    EXPECT_EQ(a.segments.size(), 1u) << "one piece once the break is withdrawn";
  }
}

TEST(ChangePoints, ASwitchThatTurnsTheOtherWayWhenMeasuredAgainIsStillTold) {
  // The sweep saw the sizes from 16 KiB jump (their first pass paid a one-off cost); measured
  // again, they lie below the line before: the path changes there, whichever way.
  const SyntheticCurve c = synthetic_curve(switching(kBelow, kSwitchAt, kRendezvous), kQuiet, 3);
  const auto faster = [](double n) { return n < kSwitchAt ? kBelow(n) : 0.7 * kBelow(n); };
  const HockneyAnalysis a = analyse_hockney(c.bytes, c.seconds, c.trials, measured_again(c, sizes_to_recheck(c), faster, 3));
  ASSERT_EQ(a.breaks.size(), 1u);
  EXPECT_NEAR(a.breaks[0].step_again, 0.7, 0.06);
  EXPECT_GT(a.breaks[0].step_swept, 1.25);
  EXPECT_TRUE(a.withdrawn.empty());
}

TEST(ChangePoints, AStepOfTheSweepsThatMeasuredAgainIsUnderTheLeastIsWithdrawn) {
  // The sweep saw x4 from 16 KiB on (the machine's); measured again, the sizes there lie a little
  // below the line before (x0.92): no step the path makes.
  const auto fourfold = [](double n) { return n < kSwitchAt ? kBelow(n) : 4 * kBelow(n); };
  const auto below = [](double n) { return n < kSwitchAt ? kBelow(n) : 0.92 * kBelow(n); };
  const SyntheticCurve c = synthetic_curve(fourfold, kQuiet, 4);
  const HockneyAnalysis a = analyse_hockney(c.bytes, c.seconds, c.trials, measured_again(c, sizes_to_recheck(c), below, 4));
  EXPECT_TRUE(a.breaks.empty());
  ASSERT_EQ(a.withdrawn.size(), 1u);
  EXPECT_NEAR(a.withdrawn[0].step_again, 0.92, 0.05);
}

TEST(ChangePoints, AMeasurementAgainAsNoisyAsWhatItFoundWithdrawsNothing) {
  // The same step the machine made, measured again on a machine so busy that the trials of a size
  // lie a factor 2 apart: that cannot tell the machine's step from the path's.
  const auto slowed = [](double n) { return 1.6 * kBelow(n); };
  unsigned told = 0;
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const SyntheticCurve c = synthetic_curve(switching(kBelow, kSwitchAt, slowed), kQuiet, seed);
    const HockneyAnalysis a =
        analyse_hockney(c.bytes, c.seconds, c.trials, measured_again(c, sizes_to_recheck(c), slowed, seed, 1.0));
    for (const CurveBreak& cut : a.withdrawn)
      EXPECT_GE(std::fabs(std::log(cut.step_swept / cut.step_again)), kClearScales * cut.noise_again) << "seed " << seed;
    told += static_cast<unsigned>(a.breaks.size());
  }
  EXPECT_GT(told, kSeeds / 2) << "mostly left standing";
}

TEST(ChangePoints, WithoutSizesMeasuredAgainABreakStandsAsFound) {
  // Records written before sizes were measured again, or a size of the break left unmeasured.
  const auto slowed = [](double n) { return 1.6 * kBelow(n); };
  const SyntheticCurve c = synthetic_curve(switching(kBelow, kSwitchAt, slowed), kQuiet, 2);
  ASSERT_EQ(analyse_hockney(c.bytes, c.seconds, c.trials).breaks.size(), 1u);
  std::vector<std::size_t> sizes = sizes_to_recheck(c);
  sizes.pop_back();
  const HockneyAnalysis a = analyse_hockney(c.bytes, c.seconds, c.trials, measured_again(c, sizes, slowed, 2));
  ASSERT_EQ(a.breaks.size(), 1u);
  EXPECT_EQ(a.breaks[0].step_again, 0) << "not measured again";
  EXPECT_TRUE(a.withdrawn.empty());
}

// vader's eager limit set to 2 KiB, as the path's settings say it: eager below, a handshake from
// 2051 B (the sizes at 2048 B may carry the header either way).
constexpr double kSetAt = 2048, kSwitchPast = 2051;
std::vector<SettingSides> eager_limit_set(const SyntheticCurve& c) {
  const std::vector<SetSwitch> set{{kSetAt, "btl_vader_eager_limit = 2048", "eager sends end", SetSwitch::Reach::any}};
  return setting_sides(c.bytes, set, false);
}
const auto kEagerThenHandshake = switching(kBelow, kSwitchPast, kRendezvous);

TEST(ChangePoints, TheSizesMeasuredAgainStraddleTheSettingNearABreak) {
  const SyntheticCurve c = synthetic_curve(kEagerThenHandshake, kQuiet, 1);
  const std::vector<SettingSides> set = eager_limit_set(c);
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(set[0].below.size(), 2u);
  EXPECT_EQ(set[0].above.size(), 2u);
  for (std::size_t i : set[0].below) EXPECT_LT(c.bytes[i] * 1.05, kSetAt) << "below, header or not: " << c.bytes[i];
  for (std::size_t i : set[0].above) EXPECT_GT(c.bytes[i], kSetAt * 1.05) << "above, header or not: " << c.bytes[i];
  const std::vector<std::size_t> sizes = sizes_to_recheck(c, set);
  for (std::size_t i : set[0].below) EXPECT_EQ(std::count(sizes.begin(), sizes.end(), i), 1) << c.bytes[i];
  for (std::size_t i : set[0].above) EXPECT_EQ(std::count(sizes.begin(), sizes.end(), i), 1) << c.bytes[i];
  EXPECT_TRUE(sizes_to_recheck(synthetic_curve(kBelow, kQuiet, 1)).empty()) << "no break, no setting: nothing measured again";
}

TEST(ChangePoints, ASettingTheSweepToldNoBreakNearIsMeasuredAgainAcross) {
  // A sweep with no step anywhere still has the sizes across its path's setting measured again:
  // the machine may have hidden the switch while the sweep went by.
  const SyntheticCurve c = synthetic_curve(kBelow, kQuiet, 1);
  const std::vector<SettingSides> set = eager_limit_set(c);
  ASSERT_EQ(set.size(), 1u);
  const std::vector<std::size_t> sizes = sizes_to_recheck(c, set);
  for (std::size_t i : set[0].below) EXPECT_EQ(std::count(sizes.begin(), sizes.end(), i), 1) << c.bytes[i];
  for (std::size_t i : set[0].above) EXPECT_EQ(std::count(sizes.begin(), sizes.end(), i), 1) << c.bytes[i];
}

TEST(ChangePoints, ASwitchTheSweepDidNotTellIsToldWhereItRepeatsAcrossItsSetting) {
  // The sweep ran slower below the setting, as slow as the handshake makes the sizes past it, and
  // shows no step; measured again, quietly or busy (a size's trials 20% apart), the handshake
  // shows across the setting.
  for (double noise : {0.02, 0.2})
    for (unsigned seed = 0; seed < kSeeds; ++seed) {
      SCOPED_TRACE("noise " + std::to_string(noise) + ", seed " + std::to_string(seed));
      const SyntheticCurve c = synthetic_curve(kRendezvous, kQuiet, seed);
      const std::vector<SettingSides> set = eager_limit_set(c);
      ASSERT_TRUE(analyse_hockney(c.bytes, c.seconds, c.trials).breaks.empty()) << "the sweep tells none";
      const HockneyAnalysis a = analyse_hockney(
          c.bytes, c.seconds, c.trials, measured_again(c, sizes_to_recheck(c, set), kEagerThenHandshake, seed, noise), set);
      ASSERT_EQ(a.breaks.size(), 1u);
      const CurveBreak& cut = a.breaks[0];
      EXPECT_TRUE(cut.by_setting && cut.predicted && cut.setting_measured_again);
      EXPECT_GT(cut.bytes, kSetAt) << "at the first size past the setting";
      EXPECT_LE(cut.bytes, kSetAt * kSwitchReach);
      EXPECT_EQ(cut.kind, BreakKind::jump);
      EXPECT_NEAR(std::log(cut.jump * kBelow(cut.bytes_again) / kRendezvous(cut.bytes_again)), 0, 0.1 + 2 * noise)
          << "the step measured again";
      EXPECT_EQ(a.segments.size(), 2u) << "the curve is fitted in two pieces";
      EXPECT_TRUE(a.withdrawn.empty());
    }
}

TEST(ChangePoints, ASettingWhoseSizesPartNeitherWayTellsNothing) {
  // No step in the sweep and none measured again, quietly or on a busy machine (a size's trials
  // 20% or a factor 2 apart): the setting alone tells no break, and there was none to withdraw.
  for (double noise : {0.02, 0.2, 1.0})
    for (unsigned seed = 0; seed < kSeeds; ++seed) {
      SCOPED_TRACE("noise " + std::to_string(noise) + ", seed " + std::to_string(seed));
      const SyntheticCurve c = synthetic_curve(kBelow, kQuiet, seed);
      const std::vector<SettingSides> set = eager_limit_set(c);
      const HockneyAnalysis a =
          analyse_hockney(c.bytes, c.seconds, c.trials, measured_again(c, sizes_to_recheck(c, set), kBelow, seed, noise), set);
      EXPECT_TRUE(a.breaks.empty());
      EXPECT_TRUE(a.withdrawn.empty());
    }
}

TEST(ChangePoints, ABreakToldByASettingNamesThatSetting) {
  // Measured again across vader's 2 KiB eager limit, its break lies at 3069 B, the first size past
  // it, nearer the 4 KiB fast boxes' setting; a break of the sweep's there names the nearer one.
  const std::vector<double> bytes{1533, 1536, 1539, 2045, 2048, 2051, 3069, 3072, 3075, 4093, 4096, 4099, 6141};
  const std::vector<double> fastest(bytes.size(), 1e-6);
  const std::vector<SetSwitch> set{{2048, "btl_vader_eager_limit = 2048", "eager sends end", SetSwitch::Reach::any},
                                   {4096, "btl_vader_fbox_size = 4096", "fast boxes end", SetSwitch::Reach::any}};
  CurveBreak cut;
  cut.bytes = 3069;
  cut.by_setting = true;
  cut.setting_bytes = 2048;
  std::vector<SwitchCheck> checks = check_set_switches(bytes, fastest, std::vector<CurveBreak>{cut}, set, true);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].break_bytes, 3069);
  EXPECT_EQ(checks[1].break_bytes, 0);
  cut.by_setting = false;
  checks = check_set_switches(bytes, fastest, std::vector<CurveBreak>{cut}, set, true);
  EXPECT_EQ(checks[0].break_bytes, 0);
  EXPECT_EQ(checks[1].break_bytes, 3069);
}

TEST(ChangePoints, ASettingAnotherSettingsBreakLiesNearIsStillMeasuredAgain) {
  // TCP's eager limit at 48 KiB, and a drop the sweep told at 96 KiB, within a factor 2 of it but
  // nearer the 128 KiB setting that it stands for: the 48 KiB setting's sides are measured again.
  const auto dropped = switching(kBelow, 98301, [](double n) { return 0.6 * kBelow(n); });
  const SyntheticCurve c = synthetic_curve(dropped, kQuiet, 1);
  ASSERT_EQ(analyse_hockney(c.bytes, c.seconds, c.trials).breaks.size(), 1u);
  const std::vector<SetSwitch> switches{{49152, "btl_tcp_eager_limit = 49152", "eager sends end", SetSwitch::Reach::any},
                                        {131072, "btl_tcp_max_send_size = 131072", "fragments", SetSwitch::Reach::any}};
  const std::vector<SettingSides> set = setting_sides(c.bytes, switches, false);
  ASSERT_EQ(set.size(), 2u);
  const std::vector<std::size_t> sizes = sizes_to_recheck(c, set);
  for (std::size_t i : set[0].below) EXPECT_EQ(std::count(sizes.begin(), sizes.end(), i), 1) << c.bytes[i];
  for (std::size_t i : set[0].above) EXPECT_EQ(std::count(sizes.begin(), sizes.end(), i), 1) << c.bytes[i];
}

// The machine slowed 1.6 times from 2051 B on while the sweep went by, beside a setting whose two
// ways cost alike (vader's 64 KiB limit here): measured again with `noise`, the analysis.
HockneyAnalysis slowed_beside_a_setting(unsigned seed, double noise) {
  const auto slowed = [](double n) { return 1.6 * kBelow(n); };
  const SyntheticCurve c = synthetic_curve(switching(kBelow, kSwitchPast, slowed), kQuiet, seed);
  const std::vector<SettingSides> set = eager_limit_set(c);
  return analyse_hockney(c.bytes, c.seconds, c.trials, measured_again(c, sizes_to_recheck(c, set), kBelow, seed, noise),
                         set);
}

TEST(ChangePoints, AStepTheMachineMadeBesideASettingThatCostsNothingIsWithdrawn) {
  // Measured again, flat across the break and across the setting, clearly: withdrawn, on the
  // stronger evidence a predicted break needs.
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const HockneyAnalysis a = slowed_beside_a_setting(seed, 0.02);
    EXPECT_TRUE(a.breaks.empty()) << "seed " << seed;
    ASSERT_EQ(a.withdrawn.size(), 1u) << "seed " << seed;
    EXPECT_TRUE(a.withdrawn[0].predicted && a.withdrawn[0].setting_measured_again) << "seed " << seed;
    EXPECT_LT(std::fabs(std::log(a.withdrawn[0].step_again)) + kClearScales * a.withdrawn[0].noise_again,
              std::log(kLeastRepeat))
        << "seed " << seed << ": clearly no step measured again";
  }
}

TEST(ChangePoints, ANoisyMeasurementAgainWithdrawsNoPredictedBreak) {
  // The same, measured again on a machine so busy that a size's trials lie a factor 2 apart: it
  // cannot show that the switch the settings predict is absent.
  for (unsigned seed = 0; seed < kSeeds; ++seed)
    EXPECT_TRUE(slowed_beside_a_setting(seed, 1.0).withdrawn.empty()) << "seed " << seed;
}

TEST(ChangePoints, APredictedBreakWhoseSettingWasNotMeasuredAgainStands) {
  // A record from before the sizes across a setting were measured again: the break's own sides
  // say the machine made it, but what the settings predict is not withdrawn on that alone.
  const auto slowed = [](double n) { return 1.6 * kBelow(n); };
  const SyntheticCurve c = synthetic_curve(switching(kBelow, kSwitchPast, slowed), kQuiet, 2);
  const std::vector<SettingSides> set = eager_limit_set(c);
  const auto again = measured_again(c, sizes_to_recheck(c), kBelow, 2);
  ASSERT_EQ(analyse_hockney(c.bytes, c.seconds, c.trials, again).withdrawn.size(), 1u) << "unpredicted: withdrawn";
  const HockneyAnalysis a = analyse_hockney(c.bytes, c.seconds, c.trials, again, set);
  ASSERT_EQ(a.breaks.size(), 1u);
  EXPECT_TRUE(a.breaks[0].predicted);
  EXPECT_FALSE(a.breaks[0].setting_measured_again);
  EXPECT_GT(a.breaks[0].step_again, 0) << "its own sides were measured again";
}

TEST(ChangePoints, ASlopeTheSweepSawWhereTheSettingsStepRepeatsIsAJump) {
  // The machine slowed the sizes around vader's 2 KiB limit by degrees while the sweep went by, so
  // its pieces part there as a change of rate; measured again across the setting, the handshake's
  // step repeats every round: a jump, as the setting says (a CI launch told this break a "slope").
  const auto steeper = [](double n) { return n < kSwitchPast ? kBelow(n) : kBelow(kSwitchPast) + (n - kSwitchPast) * 1e-9; };
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const SyntheticCurve c = synthetic_curve(steeper, kQuiet, seed);
    const std::vector<SettingSides> set = eager_limit_set(c);
    const HockneyAnalysis swept = analyse_hockney(c.bytes, c.seconds, c.trials);
    ASSERT_FALSE(swept.breaks.empty());
    EXPECT_EQ(swept.breaks[0].kind, BreakKind::slope) << swept.breaks[0].bytes;
    const HockneyAnalysis a = analyse_hockney(
        c.bytes, c.seconds, c.trials, measured_again(c, sizes_to_recheck(c, set), kEagerThenHandshake, seed), set);
    ASSERT_FALSE(a.breaks.empty());
    EXPECT_EQ(a.breaks[0].kind, BreakKind::jump) << a.breaks[0].bytes;
    EXPECT_TRUE(a.breaks[0].setting_measured_again);
    EXPECT_GT(a.breaks[0].step_again, kLeastRepeat);
  }
}

}  // namespace
}  // namespace npgpu
