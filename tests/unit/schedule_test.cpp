#include <gtest/gtest.h>

#include "results/schedule.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

using Sizes = std::vector<std::uint64_t>;

TEST(Schedule, DefaultStartsLikeNetPipe) {
  const Sizes sizes = make_schedule({});
  // 2^k and 1.5*2^k; from 16 on (step to the next size 8 > p+1 = 4) also n-3 and n+3.
  const Sizes expected{1,  2,  3,  4,  6,  8,  12, 13, 16, 19, 21, 24,  27,  29,  32,  35,  45,
                       48, 51, 61, 64, 67, 93, 96, 99, 125, 128, 131, 189, 192, 195, 253, 256, 259};
  ASSERT_GE(sizes.size(), expected.size());
  EXPECT_EQ(Sizes(sizes.begin(), sizes.begin() + static_cast<long>(expected.size())), expected);
}

TEST(Schedule, DefaultEndsAtUpperWithoutPassingIt) {
  const Sizes sizes = make_schedule({});
  // 52 base sizes (27 powers of two, 25 of 1.5*2^k) up to 64 MiB; 45 of them from 16 B on carry
  // two perturbations, except that 64 MiB + 3 lies past the upper bound.
  EXPECT_EQ(sizes.size(), 52u + 2 * 45 - 1);
  const Sizes tail(sizes.end() - 4, sizes.end());
  EXPECT_EQ(tail, (Sizes{48 * MiB, 48 * MiB + 3, 64 * MiB - 3, 64 * MiB}));
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_EQ(std::adjacent_find(sizes.begin(), sizes.end()), sizes.end());
}

TEST(Schedule, PerturbationZeroGivesBaseSizesOnly) {
  ScheduleOptions options;
  options.upper = 1024;
  options.perturbation = 0;
  EXPECT_EQ(make_schedule(options),
            (Sizes{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024}));
}

TEST(Schedule, LowerBoundStartsTheSeriesThere) {
  ScheduleOptions options;
  options.lower = 4096;
  options.upper = 16384;
  options.perturbation = 0;
  EXPECT_EQ(make_schedule(options), (Sizes{4096, 6144, 8192, 12288, 16384}));
}

TEST(Schedule, Fac2IsPlainPowersOfTwo) {
  ScheduleOptions options;
  options.fac2 = true;
  options.upper = 64;
  EXPECT_EQ(make_schedule(options), (Sizes{1, 2, 4, 8, 16, 32, 64}));
  options.lower = 3;
  options.upper = 20;
  EXPECT_EQ(make_schedule(options), (Sizes{3, 6, 12, 20})) << "upper itself is always measured";
}

TEST(Schedule, UpperOutsideTheSeriesIsStillMeasured) {
  ScheduleOptions options;
  options.upper = 1000;
  const Sizes sizes = make_schedule(options);
  EXPECT_EQ(sizes.back(), 1000u);
  EXPECT_EQ(sizes[sizes.size() - 2], 771u);
}

TEST(Schedule, SingleSize) {
  ScheduleOptions options;
  options.lower = options.upper = 100;
  EXPECT_EQ(make_schedule(options), Sizes{100});
}

}  // namespace
}  // namespace npgpu
