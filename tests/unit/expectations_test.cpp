// --expect-bw and --expect-latency: their forms, and how a curve is judged against them.
#include <gtest/gtest.h>

#include <cmath>

#include "npgpu/errors.hpp"
#include "report/expectations.hpp"
#include "results/run_data.hpp"

namespace npgpu {
namespace {

CurveData line_curve() {
  // 1 KiB: 1 us, 4 KiB: 2 us, 16 KiB: 4 us (bytes per transfer = message size).
  CurveData curve;
  curve.name = "rank0";
  curve.bytes = curve.bytes_per_transfer = {1024, 4096, 16384};
  curve.seconds = {1e-6, 2e-6, 4e-6};
  return curve;
}

TEST(Expectations, ParseSizesRatesAndTimes) {
  const Expectation bw = parse_expect_bw("1M=10GB/s");
  EXPECT_EQ(bw.kind, ExpectationKind::bandwidth);
  EXPECT_EQ(bw.bytes, 1048576u);
  EXPECT_DOUBLE_EQ(bw.value, 10e9);
  EXPECT_EQ(bw.given, "--expect-bw 1M=10GB/s");
  EXPECT_DOUBLE_EQ(parse_expect_bw("64K=100Gb/s").value, 12.5e9) << "Gb/s is bits";
  EXPECT_DOUBLE_EQ(parse_expect_bw("8=1.5 GiB/s").value, 1.5 * 1073741824.0);
  const Expectation latency = parse_expect_latency("8=2.5us");
  EXPECT_EQ(latency.bytes, 8u);
  EXPECT_DOUBLE_EQ(latency.value, 2.5e-6);
  EXPECT_DOUBLE_EQ(parse_expect_latency("1K=3ms").value, 3e-3);
}

TEST(Expectations, RefuseWhatIsNotSizeEqualsAmountWithAUnit) {
  for (const char* bad : {"1M", "1M=10", "1M=fast", "1M=-3GB/s", "1M=10gbps", "x=10GB/s", "1M=0GB/s"})
    EXPECT_THROW(parse_expect_bw(bad), UsageError) << bad;
  EXPECT_THROW(parse_expect_latency("8=2"), UsageError);
  try {
    parse_expect_latency("8=2");
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("SIZE=TIME"), std::string::npos) << error.what();
  }
}

TEST(Expectations, JudgeAtMeasuredSizes) {
  const std::vector<CurveData> curves{line_curve()};
  const auto outcomes = judge_expectations({parse_expect_bw("4K=2GB/s"), parse_expect_bw("4K=2.1GB/s"),
                                            parse_expect_latency("1K=1us"), parse_expect_latency("1K=0.9us")},
                                           curves);
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_DOUBLE_EQ(outcomes[0].measured, 4096 / 2e-6);
  EXPECT_TRUE(outcomes[0].met) << "2.048 GB/s >= 2 GB/s";
  EXPECT_FALSE(outcomes[1].met) << "2.048 GB/s < 2.1 GB/s";
  EXPECT_TRUE(outcomes[2].met);
  EXPECT_FALSE(outcomes[3].met);
  EXPECT_EQ(outcomes[3].curve, "rank0");
  EXPECT_NE(describe_outcome(outcomes[3]).find("NOT MET"), std::string::npos);
}

TEST(Expectations, InterpolateLogLogBetweenSizesAndFailOutsideTheCurve) {
  const std::vector<CurveData> curves{line_curve()};
  const auto outcomes = judge_expectations({parse_expect_latency("2K=10us"), parse_expect_latency("1M=1s")}, curves);
  EXPECT_NEAR(outcomes[0].measured, std::sqrt(2) * 1e-6, 1e-12) << "halfway in log between 1 us and 2 us";
  EXPECT_TRUE(std::isnan(outcomes[1].measured));
  EXPECT_FALSE(outcomes[1].met) << "a size the curve never reached cannot be met";
  EXPECT_NE(describe_outcome(outcomes[1]).find("did not measure"), std::string::npos);
}

}  // namespace
}  // namespace npgpu
