#include <gtest/gtest.h>

#include "results/results.hpp"
#include "support/sample_record.hpp"

namespace npgpu {
namespace {

TEST(SizeResult, TimePerTransferDividesByRepsAndTransfers) {
  SizeResult size;
  size.bytes = 1000;
  size.reps = 10;
  size.shape = {2, 1000};  // pingpong: two one-way transfers per repetition
  size.trial_seconds = {1e-3, 2e-3, 4e-3};
  summarize_trials(size);
  EXPECT_DOUBLE_EQ(size.time.min, 5e-5);
  EXPECT_DOUBLE_EQ(size.time.median, 1e-4);
  EXPECT_DOUBLE_EQ(size.time.max, 2e-4);
  EXPECT_DOUBLE_EQ(size.throughput(size.time.median), 1e7) << "1000 B per 100 us";
}

TEST(Pack, RoundTripsEveryField) {
  SizeResult size;
  size.bytes = 4096;
  size.reps = 77;
  size.shape = {64, 8192};
  size.wall_seconds = 0.25;
  size.trial_seconds = {1, 2};
  size.trial_alt_seconds = {0.9};
  const std::vector<double> packed = pack(size, 5);
  ASSERT_EQ(packed.size(), packed_length(5));
  const SizeResult back = unpack(packed.data(), 5);
  EXPECT_EQ(back.bytes, 4096u);
  EXPECT_EQ(back.reps, 77u);
  EXPECT_DOUBLE_EQ(back.shape.transfers_per_rep, 64);
  EXPECT_DOUBLE_EQ(back.shape.bytes_per_transfer, 8192);
  EXPECT_DOUBLE_EQ(back.wall_seconds, 0.25);
  EXPECT_EQ(back.trial_seconds, (std::vector<double>{1, 2}));
  EXPECT_EQ(back.trial_alt_seconds, (std::vector<double>{0.9}));
  EXPECT_DOUBLE_EQ(back.time.median, 1.5 / (77 * 64));
}

TEST(CurveSummary, LatencyPeakAndHalfPeak) {
  Curve curve;
  // Throughputs by size: 1 B -> 1e6, 2 -> 1.5e6, 4 -> 2e6 (peak), 8 -> 1.8e6 B/s.
  const std::pair<std::uint64_t, double> points[] = {{1, 1e-6}, {2, 2 / 1.5e6}, {4, 2e-6}, {8, 8 / 1.8e6}};
  for (auto [bytes, seconds] : points) {
    SizeResult size;
    size.bytes = bytes;
    size.reps = 1;
    size.shape = {1, static_cast<double>(bytes)};
    size.trial_seconds = {seconds};
    summarize_trials(size);
    curve.sizes.push_back(size);
  }
  const CurveSummary s = summarize_curve(curve, Headline::median);
  EXPECT_EQ(s.latency_bytes, 1u);
  EXPECT_DOUBLE_EQ(s.latency_seconds, 1e-6);
  EXPECT_EQ(s.peak_bytes, 4u);
  EXPECT_DOUBLE_EQ(s.peak_throughput, 2e6);
  EXPECT_EQ(s.half_peak_bytes, 1u) << "1e6 B/s is half of 2e6";
}

}  // namespace
}  // namespace npgpu
