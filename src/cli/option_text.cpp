#include "cli/option_text.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

double parse_fraction(const std::string& text, const char* option) {
  std::string number = text;
  const bool percent = !number.empty() && number.back() == '%';
  if (percent) number.pop_back();
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != number.size() || !std::isfinite(value))
    throw UsageError(std::string(option) + " '" + text + "': not a number; write a fraction such as 0.01 or a percentage such as 1%");
  value = percent ? value / 100 : value;
  if (value <= 0 || value >= 1)
    throw UsageError(std::string(option) + " '" + text + "': must lie between 0 and 1 (0% and 100%), exclusive");
  return value;
}

std::vector<std::uint64_t> parse_size_list(const std::string& text) {
  std::vector<std::uint64_t> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::uint64_t size = parse_size(text.substr(start, comma - start), "--sizes");
    if (size == 0) throw UsageError("--sizes " + text + ": a message must be at least 1 byte");
    sizes.push_back(size);
    start = comma + 1;
  }
  return sizes;
}

}  // namespace npgpu
