#include "link_peaks.hpp"

#include <cstdio>
#include <iterator>
#include <string>

namespace npgpu {

double nvlink_generation(unsigned nvml_version_code) {
  constexpr double kGenerations[] = {0, 1.0, 2.0, 2.2, 3.0, 3.1, 4.0, 5.0};
  return nvml_version_code < std::size(kGenerations) ? kGenerations[nvml_version_code] : 0;
}

LinkPeak nvlink_peak(int active_links, unsigned nvml_version_code, int compute_major) {
  const double reported = nvlink_generation(nvml_version_code);
  // Seen in the field: NVML says 5.0 for Hopper's links; the chip has NVLink 4.
  const double generation = compute_major == 9 && reported >= 5 ? 4.0 : reported;
  if (active_links <= 0 || generation == 0) return {};
  const double gb_per_link = generation < 2 ? 20 : generation < 5 ? 25 : 50;
  char how[200];
  std::snprintf(how, sizeof how, "NVLink %.1f: %d active links x %g GB/s per link, one direction%s", generation,
                active_links, gb_per_link,
                generation != reported ? " (NVML reported a newer NVLink than this chip has)" : "");
  return {active_links * gb_per_link * 1e9, how};
}

LinkPeak both_directions(const LinkPeak& one_direction) {
  if (one_direction.bytes_per_second == 0) return one_direction;
  return {2 * one_direction.bytes_per_second, one_direction.how + ", x 2 for both directions at once"};
}

LinkPeak copy_rate_peak(const LinkPeak& memory) {
  if (memory.bytes_per_second == 0) return memory;
  return {memory.bytes_per_second / 2, memory.how + ", / 2 as a copy reads and writes its size"};
}

}  // namespace npgpu
