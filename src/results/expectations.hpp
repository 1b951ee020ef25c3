#pragma once
// Acceptance thresholds for site tests: --expect-bw SIZE=RATE and --expect-latency SIZE=TIME.
// A run that falls short of one exits with kExitExpectation after its record is written.
#include <cstdint>
#include <string>
#include <vector>

namespace npgpu {

inline constexpr int kExitExpectation = 5;

enum class ExpectationKind { bandwidth, latency };

struct Expectation {
  ExpectationKind kind = ExpectationKind::bandwidth;
  std::uint64_t bytes = 0;
  double value = 0;   // bandwidth: at least this many B/s; latency: at most this many seconds
  std::string given;  // as on the command line: "--expect-bw 1M=10GB/s"
};

// What one curve gave against one expectation.
struct ExpectationOutcome {
  Expectation expectation;
  std::string curve;     // "rank0", "rank0_gpu0_to_gpu1"
  double measured = 0;   // B/s or s at that size; NaN when the curve does not reach the size
  bool met = false;
};

// "1M=10GB/s" (rates: B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, Mb/s, Gb/s) and
// "8=2us" (times: s, ms, us, ns); UsageError with one line saying what is allowed.
Expectation parse_expect_bw(const std::string& text);
Expectation parse_expect_latency(const std::string& text);

// "--expect-bw 1M=10GB/s: rank0 reached 3.21 GB/s at 1 MiB"
std::string describe_outcome(const ExpectationOutcome& outcome);

}  // namespace npgpu
