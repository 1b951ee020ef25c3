#pragma once
// What every integration test checks of a record npgpu wrote.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "results/schedule.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {

// The default schedule, up to `upper`.
inline ScheduleOptions upto(std::uint64_t upper) {
  ScheduleOptions schedule;
  schedule.upper = upper;
  return schedule;
}

// The curve holds the scheduled sizes, positive times, throughput = bytes/time for every
// statistic, and as many raw samples as trials.
inline void expect_sound_curve(const H5File& file, const std::string& curve, const ScheduleOptions& schedule) {
  const std::vector<double> bytes = file.doubles(curve + "/bytes");
  std::vector<double> expected;
  for (std::uint64_t n : make_schedule(schedule)) expected.push_back(static_cast<double>(n));
  EXPECT_EQ(bytes, expected) << curve;
  const std::vector<double> per_transfer = file.doubles(curve + "/bytes_per_transfer");
  const std::vector<double> trials = file.doubles(curve + "/trials");
  const std::vector<double> raw = file.doubles(curve + "/trial_seconds");
  const std::size_t columns = file.shape(curve + "/trial_seconds").at(1);
  for (const char* stat : {"min", "median", "mean", "max"}) {
    const std::vector<double> time = file.doubles(curve + "/time_" + stat);
    const std::vector<double> throughput = file.doubles(curve + "/throughput_from_time_" + stat);
    ASSERT_EQ(time.size(), bytes.size());
    for (std::size_t i = 0; i < time.size(); ++i) {
      EXPECT_GT(time[i], 0) << curve << " " << stat << " at " << bytes[i];
      EXPECT_NEAR(throughput[i], per_transfer[i] / time[i], 1e-9 * throughput[i]) << curve << " " << stat;
    }
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::size_t present = 0;
    for (std::size_t j = 0; j < columns; ++j) present += std::isnan(raw[i * columns + j]) ? 0 : 1;
    EXPECT_EQ(static_cast<double>(present), trials[i]) << curve << " at " << bytes[i];
    EXPECT_GE(trials[i], 1) << curve;
  }
}

}  // namespace npgpu::test
