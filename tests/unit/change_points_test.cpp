// The change points of synthetic curves: planted switches are found at their size, and noise as
// this machine makes it (a spread of trials, sizes off the curve, sizes and stretches of sizes
// slowed or sped up for a while) finds nothing, seed after seed.
#include <gtest/gtest.h>

#include "report/change_points.hpp"
#include "synthetic_curve.hpp"

namespace npgpu {
namespace {

using test::hockney;
using test::kQuiet;
using test::switching;
using test::synthetic_curve;
using test::SyntheticCurve;

constexpr unsigned kSeeds = 30;

HockneyAnalysis analyse(const SyntheticCurve& c) { return analyse_hockney(c.bytes, c.seconds, c.trials); }

std::vector<double> break_sizes(const HockneyAnalysis& a) {
  std::vector<double> sizes;
  for (const CurveBreak& b : a.breaks) sizes.push_back(b.bytes);
  return sizes;
}

TEST(ChangePoints, TheFastestTrialAndHowFarItCanBeTrusted) {
  const std::vector<double> bytes{1, 2, 4, 8, 16};
  const std::vector<std::vector<double>> trials{{2e-6, 1e-6, 1.1e-6}, {1e-6}, {1e-6, 1e-6}, {1e-6, 3e-6}, {1e-6}};
  const SizeLevels levels = size_levels(bytes, trials);
  EXPECT_EQ(levels.fastest, (std::vector<double>{1e-6, 1e-6, 1e-6, 1e-6, 1e-6}));
  EXPECT_NEAR(levels.noise[0], 0.1, 1e-9) << "the gap between the two fastest trials";
  EXPECT_NEAR(levels.noise[3], 2, 1e-9);
  EXPECT_EQ(levels.scatter, 0) << "a flat curve strays nowhere";
  EXPECT_GT(levels.noise[1], 0) << "one trial: the noise floor, never zero";
}

TEST(ChangePoints, TheScatterFromSizeToSizeIsMeasuredAndASwitchMovesItLittle) {
  const auto plain = [](double n) { return 2e-6 + n / 5e9; };
  const SyntheticCurve clean = synthetic_curve(plain, {0.03, 0, 1}, 1);
  const SyntheticCurve switched = synthetic_curve(switching(plain, 16381, hockney(20e-6, 5e9)), {0.03, 0, 1}, 1);
  const double scatter = size_levels(clean.bytes, clean.trials).scatter;
  EXPECT_NEAR(scatter, 0.03, 0.01);
  EXPECT_NEAR(size_levels(switched.bytes, switched.trials).scatter, scatter, 0.005);
}

TEST(ChangePoints, NoiseAloneBreaksNothing) {
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const SyntheticCurve c = synthetic_curve(hockney(1e-6, 5e9), kQuiet, seed);
    EXPECT_TRUE(analyse(c).breaks.empty()) << "seed " << seed;
  }
}

TEST(ChangePoints, SizesTheMachineSlowedOrSpedUpBreakNothing) {
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    SyntheticCurve c = synthetic_curve(hockney(1e-6, 5e9), kQuiet, seed);
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> factor(0.4, 4);
    for (std::size_t i = seed % 7; i < c.bytes.size(); i += 9)  // one size in nine, every trial of it
      for (double& t : c.trials[i]) t *= factor(random);
    EXPECT_TRUE(analyse(c).breaks.empty()) << "seed " << seed;
  }
}

// Sizes `from` to `to` of a quiet curve, every trial of them multiplied by `factor`.
SyntheticCurve with_stretch(unsigned seed, double from, double to, double factor) {
  SyntheticCurve c = synthetic_curve(hockney(1e-6, 5e9), kQuiet, seed);
  for (std::size_t i = 0; i < c.bytes.size(); ++i)
    if (c.bytes[i] >= from && c.bytes[i] <= to)
      for (double& t : c.trials[i]) t *= factor;
  return c;
}

TEST(ChangePoints, AStretchOfSizesTheMachineSlowedOrSpedUpIsNoRegime) {
  // As while other work held a core, or while the two ranks shared one's caches: among the
  // latency-bound sizes, and among those the bandwidth bounds. The lines beside a stretch are
  // extrapolated across it, and a short one misleads now and then: one curve in thirty may be told.
  for (const auto& [from, to] : {std::pair{19.0, 125.0}, {98301.0, 786435.0}}) {
    std::vector<unsigned> told;
    for (unsigned seed = 0; seed < kSeeds; ++seed)
      if (!analyse(with_stretch(seed, from, to, seed % 2 ? 2.2 : 0.55)).breaks.empty()) told.push_back(seed);
    EXPECT_LE(told.size(), 1u) << from << " to " << to << ", seeds " << testing::PrintToString(told);
  }
}

TEST(ChangePoints, FindsAnEagerToRendezvousJumpAtItsSize) {
  // Eager below 16 KiB (less a header: 16381 is the first size past it), a handshake of 6 us more.
  const auto model = switching(hockney(1e-6, 5e9), 16381, hockney(7e-6, 5e9));
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const HockneyAnalysis a = analyse(synthetic_curve(model, kQuiet, seed));
    ASSERT_EQ(a.breaks.size(), 1u) << "seed " << seed << ": " << testing::PrintToString(break_sizes(a));
    EXPECT_EQ(a.breaks[0].bytes, 16381);
    EXPECT_EQ(a.breaks[0].kind, BreakKind::jump);
    EXPECT_NEAR(a.breaks[0].jump, (7e-6 + 16381 / 5e9) / (1e-6 + 16381 / 5e9), 0.1);
    EXPECT_NEAR(a.breaks[0].noise, 0.015, 0.01) << "the noise it stands above";
  }
}

TEST(ChangePoints, FindsAFasterPathTakingOver) {
  // Two copies through a shared buffer below 32 KiB, one copy (CMA) from there: the time falls.
  const auto model = switching(hockney(1e-6, 2e9), 32765, hockney(4e-6, 6e9));
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const HockneyAnalysis a = analyse(synthetic_curve(model, kQuiet, seed));
    ASSERT_EQ(a.breaks.size(), 1u) << "seed " << seed << ": " << testing::PrintToString(break_sizes(a));
    EXPECT_EQ(a.breaks[0].bytes, 32765);
    EXPECT_EQ(a.breaks[0].kind, BreakKind::drop);
    EXPECT_LT(a.breaks[0].jump, 0.8);
  }
}

TEST(ChangePoints, FindsABandwidthThatChanges) {
  // Continuous at 64 KiB, where beta goes from 2 to 8 GB/s: the fits of the two sides cross there.
  const auto below = hockney(1e-6, 2e9);
  const auto model = switching(below, 65536, [&](double n) { return below(65536) + (n - 65536) / 8e9; });
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const HockneyAnalysis a = analyse(synthetic_curve(model, kQuiet, seed));
    ASSERT_EQ(a.breaks.size(), 1u) << "seed " << seed << ": " << testing::PrintToString(break_sizes(a));
    EXPECT_GE(a.breaks[0].bytes, 65533 / 1.5);
    EXPECT_LE(a.breaks[0].bytes, 65539 * 1.5);
    EXPECT_EQ(a.breaks[0].kind, BreakKind::slope);
    EXPECT_NEAR(a.breaks[0].beta_before_B_per_s, 2e9, 0.2e9);
    EXPECT_NEAR(a.breaks[0].beta_after_B_per_s, 8e9, 2e9) << "from the piece beside the break, a short one";
  }
}

TEST(ChangePoints, ASwitchBesideABendIsFoundAtItsSize) {
  // tcp's rendezvous on this machine: a jump at 16 KiB, then a bandwidth that grows by steps.
  const auto model = [](double n) {
    return n < 16381 ? 7.5e-6 + n / 1.06e9 : n < 32765 ? 17.4e-6 + n / 0.95e9 : n < 98301 ? 32.7e-6 + n / 1.81e9
                                                                                      : 26e-6 + n / 2.25e9;
  };
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const HockneyAnalysis a = analyse(synthetic_curve(model, {0.007, 0.01, 3}, seed, test::netpipe_sizes(262144)));
    const std::vector<double> found = break_sizes(a);
    EXPECT_NE(std::find(found.begin(), found.end(), 16381), found.end()) << "seed " << seed << ": "
                                                                        << testing::PrintToString(found);
  }
}

TEST(ChangePoints, AtMostThreeBreaksAndTheMostProminentOnes) {
  const auto model = [](double n) {
    return n < 256 ? 1e-6 + n / 5e9 : n < 4093 ? 3e-6 + n / 5e9 : n < 65533 ? 5e-6 + n / 5e9 : n < 1048573 ? 30e-6 + n / 5e9
                                                                                                  : 80e-6 + n / 5e9;
  };  // x3 at 256 B, x1.6 at 4 KiB, x1.9 at 64 KiB, x1.2 at 1 MiB
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const HockneyAnalysis a = analyse(synthetic_curve(model, kQuiet, seed));
    EXPECT_EQ(break_sizes(a), (std::vector<double>{256, 4093, 65533})) << "seed " << seed;
  }
}

TEST(ChangePoints, ARegimeOneTripletWideIsResolved) {
  // Two steps three sizes apart (259, 381, 384), as vader's small messages have them past its
  // 256 B inline sends and past 384 B (there x1.45 and x1.4; here x2 each), then a planted eager
  // limit of 1 KiB.
  const auto model = [](double n) {
    return (n < 259 ? 0.22e-6 : n < 387 ? 0.44e-6 : n < 1021 ? 0.88e-6 : 4.5e-6) + n / 5e9;
  };
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const HockneyAnalysis a = analyse(synthetic_curve(model, kQuiet, seed, test::netpipe_sizes(1 << 20)));
    EXPECT_EQ(break_sizes(a), (std::vector<double>{259, 387, 1021})) << "seed " << seed;
  }
}

TEST(ChangePoints, AStepUnderHalfAgainIsNotTold) {
  // vader's own step past its 256 B inline sends (x1.3 to 1.5) was told in some launches and not
  // in others; a planted eager limit of 4 KiB (x3) always.
  const auto model = [](double n) { return (n < 259 ? 0.22e-6 : n < 4093 ? 0.31e-6 : 1.5e-6) + n / 5e9; };
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    const HockneyAnalysis a = analyse(synthetic_curve(model, kQuiet, seed, test::netpipe_sizes(1 << 20)));
    EXPECT_EQ(break_sizes(a), (std::vector<double>{4093})) << "seed " << seed;
  }
}

TEST(ChangePoints, ACurveThatNoLineFollowsBreaksNothing) {
  // Each size slowed by other traffic by its own factor, 1 to 4 (tests/data's busy tcp curve).
  for (unsigned seed = 0; seed < kSeeds; ++seed) {
    SyntheticCurve c = synthetic_curve(hockney(30e-6, 1e9), {0, 0.01, 3}, seed);
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> busy(1, 4);
    for (std::vector<double>& trials : c.trials) {
      const double factor = busy(random);
      for (double& t : trials) t *= factor;
    }
    EXPECT_TRUE(analyse(c).breaks.empty()) << "seed " << seed;
  }
}

TEST(ChangePoints, ACurveTooShortToSplitIsOnePiece) {
  const std::vector<double> bytes{1, 2, 4, 8, 16};
  const SyntheticCurve c = synthetic_curve(switching(hockney(1e-6, 1e9), 8, hockney(9e-6, 1e9)), {}, 0, bytes);
  const CurvePieces found = find_pieces(c.bytes, size_levels(c.bytes, c.trials));
  ASSERT_EQ(found.pieces.size(), 1u) << "two pieces need kMinPiecePoints each";
  EXPECT_EQ(found.pieces[0].last, bytes.size() - 1);
}

}  // namespace
}  // namespace npgpu
