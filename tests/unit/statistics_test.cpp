#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "results/statistics.hpp"

namespace npgpu {
namespace {

TEST(Summarize, OddCountByHand) {
  const std::vector<double> samples{3, 1, 10, 2, 4};
  const Summary s = summarize(samples);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  // deviations -3 -2 -1 0 6: squares sum to 50, over n-1 = 4.
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(12.5));
}

TEST(Summarize, EvenCountMedianIsMeanOfMiddlePair) {
  const std::vector<double> samples{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(summarize(samples).median, 2.5);
}

TEST(Summarize, SingleSampleHasNoSpread) {
  const std::vector<double> samples{7};
  const Summary s = summarize(samples);
  EXPECT_DOUBLE_EQ(s.median, 7);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
}

TEST(MedianOf, AgreesWithSummarizeAndIsZeroForNone) {
  const std::vector<double> odd{5, 1, 3}, even{4, 1, 3, 2};
  EXPECT_EQ(median_of(odd), 3);
  EXPECT_EQ(median_of(even), 2.5);
  EXPECT_EQ(median_of(even), summarize(even).median);
  EXPECT_EQ(median_of(std::vector<double>{}), 0);
}

TEST(MedianRelativeError, ByHand) {
  // median 3; absolute deviations 0 1 1 2 7, so MAD = 1.
  const std::vector<double> samples{1, 2, 3, 4, 10};
  EXPECT_NEAR(median_relative_error(samples), 1.2533 * 1.4826 / std::sqrt(5.0) / 3, 1e-12);
}

TEST(MedianRelativeError, ShrinksWithMoreAgreeingSamples) {
  const std::vector<double> few{1.0, 1.1, 0.9};
  const std::vector<double> many{1.0, 1.1, 0.9, 1.0, 1.1, 0.9, 1.0, 1.1, 0.9, 1.0, 1.1, 0.9};
  EXPECT_LT(median_relative_error(many), median_relative_error(few));
}

TEST(MedianRelativeError, InfiniteForOneSample) {
  const std::vector<double> samples{1};
  EXPECT_TRUE(std::isinf(median_relative_error(samples)));
}

TEST(Headline, PicksTheNamedStatistic) {
  const Summary s{1, 2, 3, 4, 0.5, 4};
  EXPECT_DOUBLE_EQ(headline_of(s, Headline::min), 1);
  EXPECT_DOUBLE_EQ(headline_of(s, Headline::median), 2);
  EXPECT_DOUBLE_EQ(headline_of(s, Headline::mean), 3);
  EXPECT_STREQ(headline_name(Headline::median), "median");
}

}  // namespace
}  // namespace npgpu
