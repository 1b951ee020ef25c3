// The theoretical peaks of known links against values computed by hand.
#include <gtest/gtest.h>

#include "npgpu/link_peaks.hpp"
#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

double peak(const std::string& name) { return known_link(name).peak.bytes_per_second; }

TEST(KnownLinks, PcieIsLanesTimesRateAfter128b130bEncoding) {
  // GT/s x lanes x 128/130 / 8 bits, one direction.
  EXPECT_NEAR(peak("pcie3x8"), 7.8769e9, 1e5);    // 8 x 8 x 128/130 / 8
  EXPECT_NEAR(peak("pcie3x16"), 15.7538e9, 1e5);  // 8 x 16 x 128/130 / 8
  EXPECT_NEAR(peak("pcie4x8"), 15.7538e9, 1e5);
  EXPECT_NEAR(peak("pcie4x16"), 31.5077e9, 1e5);  // 16 x 16 x 128/130 / 8
  EXPECT_NEAR(peak("pcie5x8"), 31.5077e9, 1e5);
  EXPECT_NEAR(peak("pcie5x16"), 63.0154e9, 1e5);  // 32 x 16 x 128/130 / 8
  EXPECT_NE(known_link("pcie5x16").peak.how.find("128b/130b"), std::string::npos);
}

TEST(KnownLinks, HbmIsBusWidthTimesDataRate) {
  EXPECT_NEAR(peak("h100-sxm-hbm3"), 3.35e12, 0.01e12) << "5120 bits / 8 x 5.234 GT/s";
  EXPECT_DOUBLE_EQ(peak("h200-hbm3e"), 4.8e12) << "6144 bits / 8 x 6.25 GT/s";
  EXPECT_NEAR(peak("a100-hbm2e"), 2.039e12, 0.001e12) << "5120 bits / 8 x 3.186 GT/s";
  EXPECT_DOUBLE_EQ(memory_bus_peak(512, 2 * 1107e6, "GTX 280").bytes_per_second, 141.696e9)
      << "the seeds' GTX 280: 1107 MHz x 512 bits / 8 x 2";
}

TEST(KnownLinks, NvlinkIsLinksTimes25GBPerDirectionForGenerations2To4) {
  EXPECT_DOUBLE_EQ(peak("nvlink3x12"), 300e9) << "A100: 12 links x 25 GB/s (600 GB/s both ways)";
  EXPECT_DOUBLE_EQ(peak("nvlink4x18"), 450e9) << "H100: 18 links x 25 GB/s (900 GB/s both ways)";
  EXPECT_DOUBLE_EQ(peak("nvlink5x18"), 900e9) << "B200: 18 links x 50 GB/s (1.8 TB/s both ways)";
  EXPECT_EQ(nvlink_links_peak(3, 0).bytes_per_second, 0) << "no links, no peak";
}

TEST(KnownLinks, NetworksAreLanesTimesDataRate) {
  EXPECT_DOUBLE_EQ(peak("eth100"), 12.5e9) << "4 x 25 Gb/s / 8";
  EXPECT_DOUBLE_EQ(peak("ib-hdr"), 25e9) << "4 x 50 Gb/s / 8";
  EXPECT_DOUBLE_EQ(peak("ib-ndr"), 50e9) << "4 x 100 Gb/s / 8";
  EXPECT_NE(known_link("ib-ndr").peak.how.find("framing"), std::string::npos) << "says what comes off";
}

TEST(KnownLinks, AnUnknownNameListsTheKnownOnes) {
  try {
    known_link("pcie9x32");
    FAIL() << "accepted an unknown link";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("pcie9x32"), std::string::npos) << message;
    EXPECT_NE(message.find("ib-ndr"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace npgpu
