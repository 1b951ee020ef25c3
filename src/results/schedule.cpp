#include "results/schedule.hpp"

namespace npgpu {
namespace {

void add(std::vector<std::uint64_t>& sizes, std::uint64_t n, const ScheduleOptions& options) {
  if (n < options.lower || n > options.upper) return;
  if (!sizes.empty() && n <= sizes.back()) return;
  sizes.push_back(n);
}

}  // namespace

std::vector<std::uint64_t> make_schedule(const ScheduleOptions& options) {
  std::vector<std::uint64_t> sizes;
  if (options.lower == 0 || options.lower > options.upper) return sizes;
  const std::uint64_t p = options.perturbation;

  if (options.fac2) {
    for (std::uint64_t n = options.lower; n <= options.upper; n *= 2) {
      add(sizes, n, options);
      if (n > options.upper / 2) break;  // n * 2 would overflow past upper
    }
  } else {
    // NetPIPE's loop: the step doubles on every second size after the third.
    std::uint64_t step = options.lower > 1 ? options.lower / 2 : 1;
    std::uint64_t count = options.lower > 1 ? 1 : 0;
    for (std::uint64_t n = options.lower; n <= options.upper; n += step, ++count) {
      if (count > 2 && count % 2 == 1) step *= 2;
      const bool perturb = p > 0 && step > p + 1;
      if (perturb) add(sizes, n - p, options);
      add(sizes, n, options);
      if (perturb) add(sizes, n + p, options);
      if (n > options.upper - step) break;  // n + step would pass upper (or overflow)
    }
  }
  add(sizes, options.upper, options);
  return sizes;
}

}  // namespace npgpu
