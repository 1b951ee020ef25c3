#pragma once
// The command line's texts for fractions and lists of sizes (one size: npgpu/sizes.hpp).
#include <cstdint>
#include <string>
#include <vector>

namespace npgpu {

// "0.01" or "1%", strictly between 0 and 1; UsageError naming `option` otherwise.
double parse_fraction(const std::string& text, const char* option);

// "8,1M": sizes in the syntax of --lower, each at least one byte (--sizes).
std::vector<std::uint64_t> parse_size_list(const std::string& text);

}  // namespace npgpu
