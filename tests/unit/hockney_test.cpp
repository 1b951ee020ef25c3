// Hockney's fit recovers the latency and bandwidth of synthetic curves and finds planted breaks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "report/hockney.hpp"
#include "synthetic_curve.hpp"

namespace npgpu {
namespace {

struct Points {
  std::vector<double> bytes, seconds;
};

// t(n) = alpha + n / beta below `switch_at`, alpha2 + n / beta2 from there, times (1 + noise).
Points curve(double alpha, double beta, double noise = 0, double switch_at = 0, double alpha2 = 0, double beta2 = 0) {
  Points p;
  std::mt19937 random(42);
  std::uniform_real_distribution<double> jitter(-noise, noise);
  for (double n : test::netpipe_sizes()) {
    const bool after = switch_at > 0 && n >= switch_at;
    p.bytes.push_back(n);
    p.seconds.push_back((after ? alpha2 + n / beta2 : alpha + n / beta) * (1 + jitter(random)));
  }
  return p;
}

TEST(Hockney, RecoversAlphaAndBetaOfAnExactCurve) {
  const Points p = curve(2e-6, 10e9);
  const HockneyAnalysis a = analyse_hockney(p.bytes, p.seconds, {});
  EXPECT_NEAR(a.whole.alpha_s, 2e-6, 2e-6 * 1e-6);
  EXPECT_NEAR(a.whole.beta_B_per_s, 10e9, 10e9 * 1e-6);
  EXPECT_NEAR(a.whole.half_bytes(), 20000, 0.1) << "n1/2 = alpha x beta";
  EXPECT_LT(a.whole.rms_relative_residual, 1e-9);
  EXPECT_TRUE(a.breaks.empty());
  EXPECT_EQ(a.segments.size(), 1u);
}

TEST(Hockney, NoiseMovesTheFitLittleAndBreaksNothing) {
  const Points p = curve(5e-6, 3e9, 0.04);
  const HockneyAnalysis a = analyse_hockney(p.bytes, p.seconds, {});
  EXPECT_NEAR(a.whole.alpha_s, 5e-6, 5e-6 * 0.03);
  EXPECT_NEAR(a.whole.beta_B_per_s, 3e9, 3e9 * 0.03);
  EXPECT_GT(a.whole.rms_relative_residual, 0.005) << "the noise shows in the quality";
  EXPECT_LT(a.whole.rms_relative_residual, 0.04);
  EXPECT_TRUE(a.breaks.empty()) << "4% noise is no protocol switch";
  EXPECT_NEAR(a.whole.typical_relative_residual, 0.02, 0.01) << "uniform in +-4%: a typical size misses by about 2%";
}

TEST(Hockney, OneRuinedSizeDoesNotDragTheFit) {
  Points p = curve(1e-6, 12e9);
  p.seconds[20] *= 4;  // an interrupt in every trial of one size
  const HockneyFit fit = fit_hockney(p.bytes, p.seconds, 0, p.bytes.size() - 1);
  EXPECT_NEAR(fit.alpha_s, 1e-6, 1e-6 * 0.02);
  EXPECT_NEAR(fit.beta_B_per_s, 12e9, 12e9 * 0.02);
  EXPECT_NEAR(fit.worst_relative_residual, 0.75, 0.01) << "the ruined size is the worst point: (4t - t) / 4t";
  EXPECT_LT(fit.typical_relative_residual, 0.01) << "and no sign against the model";
  EXPECT_FALSE(is_poor(fit));
}

TEST(Hockney, FindsAPlantedEagerToRendezvousSwitch) {
  // Eager up to 32 KiB: 1 us + n / 5 GB/s; rendezvous from 64 KiB - 3: a handshake of 12 us more.
  const Points p = curve(1e-6, 5e9, 0.01, 65533, 13e-6, 10e9);
  const HockneyAnalysis a = analyse_hockney(p.bytes, p.seconds, {});
  ASSERT_EQ(a.breaks.size(), 1u);
  EXPECT_EQ(a.breaks[0].bytes, 65533);
  EXPECT_EQ(a.breaks[0].kind, BreakKind::jump);
  EXPECT_NEAR(a.breaks[0].jump, (13e-6 + 65533 / 10e9) / (1e-6 + 65533 / 5e9), 0.05) << "the time jumps above the eager fit";
  ASSERT_EQ(a.segments.size(), 2u);
  EXPECT_NEAR(a.segments[0].alpha_s, 1e-6, 1e-6 * 0.05);
  EXPECT_NEAR(a.segments[0].beta_B_per_s, 5e9, 5e9 * 0.05);
  EXPECT_NEAR(a.segments[1].alpha_s, 13e-6, 13e-6 * 0.1);
  EXPECT_NEAR(a.segments[1].beta_B_per_s, 10e9, 10e9 * 0.05);
  EXPECT_GT(a.whole.rms_relative_residual, 0.05) << "one line cannot fit both regimes";
}

TEST(Hockney, FindsTwoBreaks) {
  Points p = curve(1e-6, 5e9, 0, 4096, 4e-6, 8e9);
  for (std::size_t i = 0; i < p.bytes.size(); ++i)
    if (p.bytes[i] >= 1048576) p.seconds[i] = 40e-6 + p.bytes[i] / 20e9;
  const HockneyAnalysis a = analyse_hockney(p.bytes, p.seconds, {});
  ASSERT_EQ(a.breaks.size(), 2u);
  EXPECT_EQ(a.breaks[0].bytes, 4096);
  EXPECT_EQ(a.breaks[0].kind, BreakKind::jump);
  EXPECT_EQ(a.breaks[1].bytes, 1048576);
  EXPECT_EQ(a.breaks[1].kind, BreakKind::drop) << "40 us + n / 20 GB/s is faster there than 4 us + n / 8 GB/s";
}

TEST(Hockney, ATimeThatDoesNotGrowHasNoBandwidthTerm) {
  const std::vector<double> bytes{1, 2, 4, 8, 16}, seconds{3e-6, 3e-6, 3e-6, 3e-6, 3e-6};
  const HockneyFit fit = fit_hockney(bytes, seconds, 0, 4);
  EXPECT_EQ(fit.beta_B_per_s, 0);
  EXPECT_DOUBLE_EQ(fit.alpha_s, 3e-6);
  EXPECT_EQ(fit.half_bytes(), 0);
}

TEST(Hockney, TooFewPointsGiveNoAnalysis) {
  const std::vector<double> one{8}, time{1e-6};
  EXPECT_TRUE(analyse_hockney(one, time, {}).segments.empty());
}

}  // namespace
}  // namespace npgpu
