#pragma once
// The test-only fault switches. --test-flip-byte OFFSET[@SIZE], hidden from --help: one byte of
// every message of at least SIZE bytes is flipped where it arrives, before any check reads it, so
// the tests can prove that the per-message tag and --check catch corruption and fail the run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "npgpu/clock.hpp"
#include "npgpu/errors.hpp"

namespace npgpu {

struct ByteFlip {
  std::uint64_t offset = 0;     // clamped to the message's last byte
  std::uint64_t min_bytes = 0;  // smaller messages arrive intact, so a run has sizes before the fault
};

// "OFFSET" or "OFFSET@SIZE"; UsageError otherwise.
ByteFlip parse_byte_flip(const std::string& text);

// The byte to flip in an arrived message of `bytes`, if the switch is on and the message is large
// enough. Inline: the patterns ask on every repetition, and the switch is off but in tests.
inline std::optional<std::uint64_t> byte_to_flip(const std::optional<ByteFlip>& flip, std::uint64_t bytes) {
  if (!flip || bytes == 0 || bytes < flip->min_bytes) return std::nullopt;
  return std::min(flip->offset, bytes - 1);
}

void flip_host_byte(std::byte* message, std::uint64_t offset);

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

// A corrupt transfer, found by a tag or --check. It is thrown once the transfer's exchange is over,
// so no peer is left waiting; the driver then fails the run on every rank together.
struct DataError : RunError {
  using RunError::RunError;
};

}  // namespace npgpu
