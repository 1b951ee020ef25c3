#pragma once
// The test-only machine change: the option and the clock it makes. The driver's, not the
// modules': a module times with whatever clock it is handed.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "npgpu/clock.hpp"

namespace npgpu {

// The test-only machine change (--test-clock-drift SIZE:FACTOR, hidden from --help): from the
// moment a sweep reaches SIZE, the clock the module times with runs FACTOR times fast for the rest
// of the run, so every time measured from then on reads FACTOR times longer, as on a machine that
// slowed down then and stayed slow. The tests plant it to prove that a step the machine made along
// a sweep is told from a protocol switch.
struct ClockDrift {
  std::uint64_t from_bytes = 0;
  double factor = 1;
};

// "SIZE:FACTOR", FACTOR above 0; UsageError otherwise.
ClockDrift parse_clock_drift(const std::string& text);

// A clock that reads `factor` times the time passed since start() (as its base before it).
class DriftingClock final : public Clock {
 public:
  DriftingClock(const Clock& base, double factor) : base_(base), factor_(factor) {}
  std::string_view name() const override { return base_.name(); }
  std::string_view description() const override { return base_.description(); }
  double now() const override;
  void start();  // once: later calls change nothing

 private:
  const Clock& base_;
  double factor_;
  std::optional<double> started_;  // the base's reading at start()
};

}  // namespace npgpu
