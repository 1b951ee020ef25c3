#include "npgpu/fault.hpp"

#include <exception>
#include <string>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

ByteFlip parse_byte_flip(const std::string& text) {
  const std::size_t at = text.find('@');
  const std::string offset = text.substr(0, at);
  if (offset.empty() || offset.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("--test-flip-byte " + text + ": expected OFFSET or OFFSET@SIZE, OFFSET a byte index");
  ByteFlip flip{std::stoull(offset), 0};
  if (at != std::string::npos) flip.min_bytes = parse_size(text.substr(at + 1), "--test-flip-byte");
  return flip;
}

ClockDrift parse_clock_drift(const std::string& text) {
  const std::size_t colon = text.find(':');
  const std::string usage = "--test-clock-drift " + text + ": expected SIZE:FACTOR, FACTOR a number above 0";
  if (colon == std::string::npos) throw UsageError(usage);
  ClockDrift drift{parse_size(text.substr(0, colon), "--test-clock-drift"), 0};
  try {
    std::size_t used = 0;
    drift.factor = std::stod(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1) drift.factor = 0;
  } catch (const std::exception&) {
    // not a number, or out of range: the factor stays 0 and the usage line below says what is allowed
  }
  if (!(drift.factor > 0)) throw UsageError(usage);
  return drift;
}

double DriftingClock::now() const {
  const double now = base_.now();
  return started_ ? *started_ + factor_ * (now - *started_) : now;
}

void DriftingClock::start() {
  if (!started_) started_ = base_.now();
}

void flip_host_byte(std::byte* message, std::uint64_t offset) { message[offset] ^= std::byte{0xFF}; }

}  // namespace npgpu
