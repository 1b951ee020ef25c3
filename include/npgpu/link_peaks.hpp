#pragma once
// Theoretical peaks of the links a transfer can cross, with how each was computed. No CUDA here:
// the modules use them with what the driver reports, `npgpu report --link` with a named link.
#include <string>
#include <vector>

#include "npgpu/module.hpp"

namespace npgpu {

// NVLink generation (1.0, 2.0, 2.2, 3.0, 3.1, 4.0, 5.0) from NVML's nvmlNvlinkVersion_t code
// (1 to 7); 0 for a code NVML does not define.
double nvlink_generation(unsigned nvml_version_code);

// Links x the one-direction rate of one link: NVLink 1: 20 GB/s (8 lanes x 20 Gb/s); 2, 3 and 4:
// 25 GB/s (8 x 25, 4 x 50, 2 x 100 Gb/s); 5: 50 GB/s (2 x 200 Gb/s). Unknown (0) without links
// or for an unknown generation.
LinkPeak nvlink_links_peak(double generation, int links);

// The same from what NVML reports. `compute_major` guards against NVML reporting NVLink 5 on
// Hopper (compute capability 9), which has NVLink 4.
LinkPeak nvlink_peak(int active_links, unsigned nvml_version_code, int compute_major);

// A memory bus: bus width in bits / 8 x data rate per pin (transfers per second; twice the memory
// clock for double data rate). `what` names the part ("H200 HBM3e").
LinkPeak memory_bus_peak(int bus_bits, double transfers_per_s, const std::string& what);

// A network port: lanes x data rate per lane (after line encoding) / 8, one direction. Framing and
// headers come off that, so even a perfect transfer stays a few percent under it.
LinkPeak network_peak(const std::string& what, int lanes, double gbit_per_s_per_lane);

// The same link used both ways at once.
LinkPeak both_directions(const LinkPeak& one_direction);

// A copy inside GPU memory reads and writes its size, so its size/time can reach half the
// memory's bandwidth.
LinkPeak copy_rate_peak(const LinkPeak& memory);

// Links known by name, for judging a curve whose record has no peak (`npgpu report --link`).
struct KnownLink {
  std::string name;  // "pcie5x16", "ib-ndr", ...
  LinkPeak peak;
};
const std::vector<KnownLink>& known_links();
// The link of that name; UsageError naming the known ones otherwise.
const KnownLink& known_link(const std::string& name);

}  // namespace npgpu
