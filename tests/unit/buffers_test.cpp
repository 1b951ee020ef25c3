#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "npgpu/buffers.hpp"
#include "npgpu/errors.hpp"
#include "npgpu/fault.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

TEST(Rotation, ColdWalksPageAlignedSlotsAndWraps) {
  const Rotation rotation(1 * MiB, true);
  EXPECT_EQ(rotation.offset(4096, 0), 0u);
  EXPECT_EQ(rotation.offset(4096, 1), 4096u);
  EXPECT_EQ(rotation.offset(5000, 1), 8192u) << "messages of a page or more start on a page";
  EXPECT_EQ(rotation.offset(4096, 256), 0u) << "256 slots of 4 KiB fill 1 MiB";
  EXPECT_EQ(rotation.offset(1, 3), 192u) << "small messages take a cache line each";
}

TEST(Rotation, EveryMessageFitsInThePool) {
  const std::uint64_t pool = 3 * MiB + 123;
  const Rotation rotation(pool, true);
  for (std::uint64_t bytes : {1ull, 63ull, 4097ull, 1000000ull, 1572864ull, 3145728ull})
    for (std::uint64_t index = 0; index < 1000; ++index)
      ASSERT_LE(rotation.offset(bytes, index) + bytes, pool) << bytes << " at " << index;
}

TEST(Rotation, WarmAndOversizedMessagesStayAtZero) {
  EXPECT_EQ(Rotation(1 * MiB, false).offset(64, 5), 0u);
  EXPECT_EQ(Rotation(1 * MiB, true).offset(600 * KiB, 5), 0u) << "only one slot fits";
}

TEST(RotationPool, ColdSpansTwiceTheCacheWithinBounds) {
  EXPECT_EQ(rotation_pool_bytes(1 * MiB, 320 * MiB, true), 256 * MiB);
  EXPECT_EQ(rotation_pool_bytes(1 * MiB, 8 * MiB, true), 64 * MiB);
  EXPECT_EQ(rotation_pool_bytes(1 * MiB, 100 * MiB, true), 200 * MiB);
  EXPECT_EQ(rotation_pool_bytes(512 * MiB, 32 * MiB, true), 512 * MiB);
  EXPECT_EQ(rotation_pool_bytes(1 * MiB, 320 * MiB, false), 1 * MiB);
}

TEST(Stamp, TagsFirstAndLastByte) {
  HostBuffer buffer(100);
  stamp(buffer.data(), 100, 7);
  EXPECT_EQ(untagged_byte(buffer.data(), 100, 7), 100u) << "both tag bytes carry the tag";
  EXPECT_EQ(untagged_byte(buffer.data(), 100, 8), 0u);
  buffer.data()[99] = std::byte{0};
  EXPECT_EQ(untagged_byte(buffer.data(), 100, 7), 99u) << "a lost tail is caught, and named";
}

TEST(ByteFlip, FlipsOnlyMessagesLargeEnoughAtAClampedOffset) {
  const ByteFlip flip = parse_byte_flip("5000@4K");
  EXPECT_EQ(flip.offset, 5000u);
  EXPECT_EQ(flip.min_bytes, 4096u);
  EXPECT_EQ(byte_to_flip(flip, 4095), std::nullopt) << "smaller messages arrive intact";
  EXPECT_EQ(byte_to_flip(flip, 4096), std::optional<std::uint64_t>(4095)) << "clamped to the last byte";
  EXPECT_EQ(byte_to_flip(flip, 8192), std::optional<std::uint64_t>(5000));
  EXPECT_EQ(byte_to_flip(std::nullopt, 8192), std::nullopt) << "off unless asked for";
  EXPECT_THROW(parse_byte_flip("x@4K"), UsageError);
  EXPECT_THROW(parse_byte_flip("@4K"), UsageError);
}

TEST(Pattern, FindsTheFirstChangedByte) {
  HostBuffer buffer(10000);
  fill_pattern(buffer.data(), 10000, 42);
  EXPECT_EQ(first_mismatch(buffer.data(), 10000, 42), 10000u);
  EXPECT_NE(first_mismatch(buffer.data(), 10000, 43), 10000u) << "another seed, another pattern";
  buffer.data()[1234] ^= std::byte{1};
  EXPECT_EQ(first_mismatch(buffer.data(), 10000, 42), 1234u);
}

TEST(HostBuffer, PageAligned) {
  HostBuffer buffer(12345);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % 4096, 0u);
  EXPECT_EQ(buffer.size(), 12345u);
}

}  // namespace
}  // namespace npgpu
