#include "results/clock_drift.hpp"

#include <exception>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

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

}  // namespace npgpu
