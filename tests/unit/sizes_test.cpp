#include <gtest/gtest.h>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

TEST(ParseSize, PlainBytesAndUnits) {
  EXPECT_EQ(parse_size("64", "--upper"), 64u);
  EXPECT_EQ(parse_size("64B", "--upper"), 64u);
  EXPECT_EQ(parse_size("4K", "--upper"), 4096u);
  EXPECT_EQ(parse_size("4k", "--upper"), 4096u);
  EXPECT_EQ(parse_size("4KiB", "--upper"), 4096u);
  EXPECT_EQ(parse_size("1M", "--upper"), 1048576u);
  EXPECT_EQ(parse_size("1MiB", "--upper"), 1048576u);
  EXPECT_EQ(parse_size("1G", "--upper"), 1073741824u);
  EXPECT_EQ(parse_size("1GiB", "--upper"), 1073741824u);
}

TEST(ParseSize, DecimalUnitsArePowersOfThousand) {
  EXPECT_EQ(parse_size("4kB", "--upper"), 4000u);
  EXPECT_EQ(parse_size("2MB", "--upper"), 2000000u);
  EXPECT_EQ(parse_size("1GB", "--upper"), 1000000000u);
}

void expect_rejected(const char* text, const char* why) {
  try {
    parse_size(text, "--lower");
    FAIL() << "accepted '" << text << "'";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("--lower"), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
    EXPECT_NE(message.find("K, KiB = 1024"), std::string::npos) << "must say what is allowed: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "must be one line: " << message;
  }
}

TEST(ParseSize, RejectsWhatIsNotASize) {
  expect_rejected("0", "at least 1 byte");
  expect_rejected("0K", "at least 1 byte");
  expect_rejected("-4", "negative");
  expect_rejected("abc", "not a number");
  expect_rejected("", "no size");
  expect_rejected("4X", "unknown unit 'X'");
  expect_rejected("4KX", "unknown unit 'KX'");
  expect_rejected("1.5M", "unknown unit '.5M'");
  expect_rejected("99999999999999999999", "too large");
  expect_rejected("99999999999G", "too large");
}

TEST(FormatBytes, RoundSizesInBinaryUnitsOthersExact) {
  EXPECT_EQ(format_bytes(48), "48 B");
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(16381), "16381 B");
  EXPECT_EQ(format_bytes(64 * MiB), "64 MiB");
  EXPECT_EQ(format_bytes(3 * GiB / 2), "1.5 GiB");
}

TEST(FormatCapacity, RoundedForAmountsOfMemory) {
  EXPECT_EQ(format_capacity(146591680ull * KiB), "139.8 GiB");
  EXPECT_EQ(format_capacity(60 * MiB), "60 MiB");
  EXPECT_EQ(format_capacity(1536), "1.5 KiB");
  EXPECT_EQ(format_capacity(100), "100 B");
}

TEST(FormatThroughput, DecimalUnlessAskedForBinary) {
  EXPECT_EQ(format_throughput(12.3e9, Units::decimal), "12.3 GB/s");
  EXPECT_EQ(format_throughput(512e6, Units::decimal), "512 MB/s");
  EXPECT_EQ(format_throughput(2.0 * GiB, Units::binary), "2.00 GiB/s");
}

TEST(FormatSeconds, PicksAReadableUnit) {
  EXPECT_EQ(format_seconds(0.52e-6), "520 ns");
  EXPECT_EQ(format_seconds(1.5e-6), "1.50 us");
  EXPECT_EQ(format_seconds(12.4e-3), "12.4 ms");
  EXPECT_EQ(format_seconds(2.0), "2.00 s");
}

}  // namespace
}  // namespace npgpu
