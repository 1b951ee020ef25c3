// The seeds' yardstick: 70-80% of the theoretical bandwidth is very good.
#include <gtest/gtest.h>

#include "report/efficiency.hpp"

namespace npgpu {
namespace {

TEST(Efficiency, GradesFollowTheYardstick) {
  EXPECT_EQ(efficiency_grade(0.85), "excellent");
  EXPECT_EQ(efficiency_grade(0.80), "excellent");
  EXPECT_EQ(efficiency_grade(0.75), "very good");
  EXPECT_EQ(efficiency_grade(0.70), "very good");
  EXPECT_EQ(efficiency_grade(0.60), "fair");
  EXPECT_EQ(efficiency_grade(0.30), "poor");
  EXPECT_EQ(efficiency_grade(1.10), "above the peak");
  EXPECT_EQ(efficiency_grade(1.01), "excellent") << "noise may show a hair over the peak";
  EXPECT_NE(efficiency_verdict(0.73).find("70-80%"), std::string::npos);
}

}  // namespace
}  // namespace npgpu
