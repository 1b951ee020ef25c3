#include "npgpu/sizes.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::uint64_t unit_factor(std::string_view suffix) {
  static const std::array<std::pair<const char*, std::uint64_t>, 14> units{{
      {"", 1},          {"b", 1},
      {"k", KiB},       {"ki", KiB},       {"kib", KiB},
      {"m", MiB},       {"mi", MiB},       {"mib", MiB},
      {"g", GiB},       {"gi", GiB},       {"gib", GiB},
      {"kb", 1000},     {"mb", 1000'000},  {"gb", 1000'000'000},
  }};
  const std::string key = lowercase(suffix);
  for (const auto& [name, factor] : units)
    if (key == name) return factor;
  return 0;
}

// Largest first, so a size is shown in the largest unit it reaches.
constexpr std::array<std::pair<std::uint64_t, const char*>, 3> kBinaryUnits{
    {{GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}}};

std::string trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

std::string with_precision(double value, const char* unit) {
  char text[64];
  const int digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  std::snprintf(text, sizeof text, "%.*f %s", digits, value, unit);
  return text;
}

}  // namespace

std::uint64_t parse_size(std::string_view text, std::string_view option) {
  const std::string shown = trimmed(text);
  auto fail = [&](const std::string& why) -> std::uint64_t {
    throw UsageError(std::string(option) + " '" + shown + "': " + why + "; a size is " + kSizeSyntax);
  };
  if (shown.empty()) return fail("no size given");
  if (shown.front() == '-') return fail("sizes cannot be negative");
  std::size_t digits = 0;
  while (digits < shown.size() && std::isdigit(static_cast<unsigned char>(shown[digits]))) ++digits;
  if (digits == 0) return fail("not a number");
  const std::string_view suffix = std::string_view(shown).substr(digits);
  const std::uint64_t factor = unit_factor(trimmed(suffix));
  if (factor == 0) return fail("unknown unit '" + trimmed(suffix) + "'");
  std::uint64_t count = 0;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 0; i < digits; ++i) {
    const auto digit = static_cast<std::uint64_t>(shown[i] - '0');
    if (count > (kMax - digit) / 10) return fail("too large");
    count = count * 10 + digit;
  }
  if (count == 0) return fail("must be at least 1 byte");
  if (count > kMax / factor) return fail("too large");
  return count * factor;
}

std::string format_bytes(std::uint64_t bytes) {
  // Round sizes in binary units; any other size (the perturbed ones) exactly, in bytes.
  for (const auto& [factor, name] : kBinaryUnits) {
    if (bytes < factor) continue;
    if (bytes % factor == 0) return std::to_string(bytes / factor) + " " + name;
    if (bytes % (factor / 2) == 0) return std::to_string(bytes / factor) + ".5 " + name;
  }
  return std::to_string(bytes) + " B";
}

std::string format_capacity(std::uint64_t bytes) {
  for (const auto& [factor, name] : kBinaryUnits) {
    if (bytes < factor) continue;
    if (bytes % factor == 0) return std::to_string(bytes / factor) + " " + name;
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", static_cast<double>(bytes) / static_cast<double>(factor), name);
    return text;
  }
  return std::to_string(bytes) + " B";
}

std::string format_seconds(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  if (seconds >= 1) return with_precision(seconds, "s");
  if (seconds >= 1e-3) return with_precision(seconds * 1e3, "ms");
  if (seconds >= 1e-6) return with_precision(seconds * 1e6, "us");
  return with_precision(seconds * 1e9, "ns");
}

std::string format_throughput(double bytes_per_second, Units units) {
  if (!std::isfinite(bytes_per_second)) return "n/a";
  const double giga = units == Units::decimal ? 1e9 : static_cast<double>(GiB);
  const double mega = units == Units::decimal ? 1e6 : static_cast<double>(MiB);
  const bool decimal = units == Units::decimal;
  if (bytes_per_second >= giga) return with_precision(bytes_per_second / giga, decimal ? "GB/s" : "GiB/s");
  return with_precision(bytes_per_second / mega, decimal ? "MB/s" : "MiB/s");
}

}  // namespace npgpu
