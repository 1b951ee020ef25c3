// The arithmetic behind the SM copy kernel and the link peaks, without a GPU.
#include <gtest/gtest.h>

#include "npgpu/link_peaks.hpp"
#include "cuda_common/sm_copy_plan.hpp"

namespace npgpu {
namespace {

TEST(SmCopySplit, MovesExactlyTheBytesAsked) {
  for (std::uint64_t bytes : {0ull, 1ull, 8ull, 15ull, 16ull, 17ull, 4093ull, 4096ull, 512ull * 1024 * 1024 + 3}) {
    const SmCopySplit split = split_sm_copy(bytes);
    EXPECT_EQ(split.bytes_moved(), bytes) << bytes;
    EXPECT_LT(split.tail_bytes, kSmCopyVectorBytes) << bytes;
  }
  EXPECT_EQ(split_sm_copy(37).vectors, 2u);
  EXPECT_EQ(split_sm_copy(37).tail_bytes, 5u);
}

TEST(SmCopyGrid, FillsTheChipButNoMore) {
  EXPECT_EQ(sm_copy_blocks(132, 0), 1u) << "a tail alone still needs one block";
  EXPECT_EQ(sm_copy_blocks(132, kSmCopyThreads), 1u);
  EXPECT_EQ(sm_copy_blocks(132, kSmCopyThreads + 1), 2u);
  EXPECT_EQ(sm_copy_blocks(132, 1ull << 30), 132u * kSmCopyBlocksPerSm);
}

TEST(NvlinkPeak, LinksTimesTheirGenerationsRate) {
  EXPECT_DOUBLE_EQ(nvlink_peak(18, 6, 9).bytes_per_second, 450e9) << "H100/H200: 18 NVLink 4 links";
  EXPECT_DOUBLE_EQ(nvlink_peak(12, 4, 8).bytes_per_second, 300e9) << "A100: 12 NVLink 3 links";
  EXPECT_DOUBLE_EQ(nvlink_peak(4, 1, 6).bytes_per_second, 80e9) << "P100: NVLink 1 at 20 GB/s";
  EXPECT_DOUBLE_EQ(nvlink_peak(18, 7, 10).bytes_per_second, 900e9) << "B200: NVLink 5 at 50 GB/s";
  EXPECT_NE(nvlink_peak(18, 6, 9).how.find("NVLink 4.0: 18 links x 25 GB/s"), std::string::npos);
}

TEST(NvlinkPeak, HopperHasNvlink4WhateverNvmlSays) {
  const LinkPeak peak = nvlink_peak(18, 7, 9);
  EXPECT_DOUBLE_EQ(peak.bytes_per_second, 450e9);
  EXPECT_NE(peak.how.find("NVML reported a newer NVLink"), std::string::npos);
}

TEST(NvlinkPeak, UnknownWithoutLinksOrAKnownVersion) {
  EXPECT_EQ(nvlink_peak(0, 6, 9).bytes_per_second, 0);
  EXPECT_EQ(nvlink_peak(18, 0, 9).bytes_per_second, 0);
  EXPECT_EQ(nvlink_peak(18, 42, 9).bytes_per_second, 0);
  EXPECT_DOUBLE_EQ(nvlink_generation(3), 2.2);
}

TEST(LinkPeaks, BothDirectionsAndCopyRate) {
  const LinkPeak pcie{63.015e9, "PCIe Gen5 x16"};
  EXPECT_DOUBLE_EQ(both_directions(pcie).bytes_per_second, 126.03e9);
  EXPECT_NE(both_directions(pcie).how.find("both directions"), std::string::npos);
  const LinkPeak hbm{4.8e12, "memory clock x bus"};
  EXPECT_DOUBLE_EQ(copy_rate_peak(hbm).bytes_per_second, 2.4e12) << "a copy reads and writes its size";
  EXPECT_EQ(both_directions(LinkPeak{}).bytes_per_second, 0) << "unknown stays unknown";
}

}  // namespace
}  // namespace npgpu
