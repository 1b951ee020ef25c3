#pragma once
// Message sizes as users write them ("64", "4K", "1MiB") and numbers as people read them.
#include <cstdint>
#include <string>
#include <string_view>

namespace npgpu {

inline constexpr std::uint64_t KiB = 1024;
inline constexpr std::uint64_t MiB = 1024 * KiB;
inline constexpr std::uint64_t GiB = 1024 * MiB;

// What --help and every size error say about the accepted forms.
inline constexpr const char* kSizeSyntax =
    "a whole number of bytes with an optional unit: B; K, KiB = 1024; M, MiB = 1024^2; "
    "G, GiB = 1024^3; kB, MB, GB = powers of 1000";

// Parses a size for `option`; throws UsageError naming the option and what is allowed.
std::uint64_t parse_size(std::string_view text, std::string_view option);

// Throughput units: decimal (GB/s, 1e9 B/s) unless the user asks for binary (GiB/s).
enum class Units { decimal, binary };

std::string format_bytes(std::uint64_t bytes);          // "48 B", "4 KiB", "1.5 MiB", "16381 B": exact
std::string format_capacity(std::uint64_t bytes);       // "139.8 GiB": amounts of memory, rounded
std::string format_seconds(double seconds);             // "0.52 us", "12.4 ms"
std::string format_throughput(double bytes_per_second, Units units);  // "12.3 GB/s"

}  // namespace npgpu
