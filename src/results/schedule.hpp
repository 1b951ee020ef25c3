#pragma once
// Which message sizes a sweep visits: NetPIPE's schedule or plain powers of two.
#include <cstdint>
#include <vector>

namespace npgpu {

struct ScheduleOptions {
  std::uint64_t lower = 1;
  std::uint64_t upper = 64ull * 1024 * 1024;
  std::uint64_t perturbation = 3;  // NetPIPE's p: also test n-p and n+p
  bool fac2 = false;               // plain powers of two, no perturbation
};

// Sizes in increasing order, each once. NetPIPE's schedule starts at `lower` and grows by a step
// that doubles every second size (1, 2, 3, 4, 6, 8, 12, 16, 24, ...: 2^k and 1.5*2^k from 1);
// once the step to the next size exceeds p+1, n-p and n+p are tested too. Sizes outside
// [lower, upper] are dropped, and `upper` itself is always measured.
std::vector<std::uint64_t> make_schedule(const ScheduleOptions& options);

}  // namespace npgpu
