#include "npgpu/link_peaks.hpp"

#include <cstdio>
#include <iterator>
#include <string>

#include "npgpu/errors.hpp"
#include "npgpu/gpu_binding.hpp"

namespace npgpu {

double nvlink_generation(unsigned nvml_version_code) {
  constexpr double kGenerations[] = {0, 1.0, 2.0, 2.2, 3.0, 3.1, 4.0, 5.0};
  return nvml_version_code < std::size(kGenerations) ? kGenerations[nvml_version_code] : 0;
}

LinkPeak nvlink_links_peak(double generation, int links) {
  if (links <= 0 || generation < 1 || generation >= 6) return {};
  const double gb_per_link = generation < 2 ? 20 : generation < 5 ? 25 : 50;
  char how[160];
  std::snprintf(how, sizeof how, "NVLink %.1f: %d links x %g GB/s per link, one direction", generation, links,
                gb_per_link);
  return {links * gb_per_link * 1e9, how};
}

LinkPeak nvlink_peak(int active_links, unsigned nvml_version_code, int compute_major) {
  const double reported = nvlink_generation(nvml_version_code);
  // Seen in the field: NVML says 5.0 for Hopper's links; the chip has NVLink 4.
  const double generation = compute_major == 9 && reported >= 5 ? 4.0 : reported;
  LinkPeak peak = nvlink_links_peak(generation, active_links);
  if (peak.bytes_per_second > 0 && generation != reported)
    peak.how += " (NVML reported a newer NVLink than this chip has)";
  return peak;
}

LinkPeak memory_bus_peak(int bus_bits, double transfers_per_s, const std::string& what) {
  if (bus_bits <= 0 || transfers_per_s <= 0) return {};
  char how[200];
  std::snprintf(how, sizeof how, "%s: %d-bit bus / 8 x %.4g GT/s per pin", what.c_str(), bus_bits,
                transfers_per_s / 1e9);
  return {bus_bits / 8.0 * transfers_per_s, how};
}

LinkPeak network_peak(const std::string& what, int lanes, double gbit_per_s_per_lane) {
  char how[200];
  std::snprintf(how, sizeof how, "%s: %d lanes x %g Gb/s of data / 8, one direction (framing comes off that)",
                what.c_str(), lanes, gbit_per_s_per_lane);
  return {lanes * gbit_per_s_per_lane * 1e9 / 8, how};
}

LinkPeak both_directions(const LinkPeak& one_direction) {
  if (one_direction.bytes_per_second == 0) return one_direction;
  return {2 * one_direction.bytes_per_second, one_direction.how + ", x 2 for both directions at once"};
}

LinkPeak copy_rate_peak(const LinkPeak& memory) {
  if (memory.bytes_per_second == 0) return memory;
  return {memory.bytes_per_second / 2, memory.how + ", / 2 as a copy reads and writes its size"};
}

const std::vector<KnownLink>& known_links() {
  // Data rates per pin that give the vendors' figures: H100 SXM5 3.35 TB/s (HBM3, 5 stacks),
  // H200 4.8 TB/s (HBM3e, 6 stacks), A100 80GB 2.04 TB/s (HBM2e, 5 stacks).
  static const std::vector<KnownLink> links{
      {"pcie3x8", pcie_peak(8, 8)},
      {"pcie3x16", pcie_peak(8, 16)},
      {"pcie4x8", pcie_peak(16, 8)},
      {"pcie4x16", pcie_peak(16, 16)},
      {"pcie5x8", pcie_peak(32, 8)},
      {"pcie5x16", pcie_peak(32, 16)},
      {"nvlink3x12", nvlink_links_peak(3, 12)},
      {"nvlink4x18", nvlink_links_peak(4, 18)},
      {"nvlink5x18", nvlink_links_peak(5, 18)},
      {"a100-hbm2e", memory_bus_peak(5120, 3.186e9, "A100 80GB HBM2e")},
      {"h100-sxm-hbm3", memory_bus_peak(5120, 5.234e9, "H100 SXM5 HBM3")},
      {"h200-hbm3e", memory_bus_peak(6144, 6.25e9, "H200 HBM3e")},
      {"eth25", network_peak("25 Gb/s Ethernet", 1, 25)},
      {"eth100", network_peak("100 Gb/s Ethernet", 4, 25)},
      {"eth200", network_peak("200 Gb/s Ethernet", 4, 50)},
      {"eth400", network_peak("400 Gb/s Ethernet", 4, 100)},
      {"ib-edr", network_peak("EDR InfiniBand 4x", 4, 25)},
      {"ib-hdr", network_peak("HDR InfiniBand 4x", 4, 50)},
      {"ib-ndr", network_peak("NDR InfiniBand 4x", 4, 100)},
  };
  return links;
}

const KnownLink& known_link(const std::string& name) {
  std::string names;
  for (const KnownLink& link : known_links()) {
    if (link.name == name) return link;
    names += (names.empty() ? "" : ", ") + link.name;
  }
  throw UsageError("--link " + name + ": not a known link; known links are " + names);
}

}  // namespace npgpu
