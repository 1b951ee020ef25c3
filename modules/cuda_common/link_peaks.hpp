#pragma once
// Theoretical peaks of the links inside a node, with how each was computed. No CUDA here.
#include "npgpu/module.hpp"

namespace npgpu {

// NVLink generation (1.0, 2.0, 2.2, 3.0, 3.1, 4.0, 5.0) from NVML's nvmlNvlinkVersion_t code
// (1 to 7); 0 for a code NVML does not define.
double nvlink_generation(unsigned nvml_version_code);

// Active links between two GPUs x the one-direction rate of one link: NVLink 1: 20 GB/s,
// 2 to 4: 25 GB/s, 5: 50 GB/s. `compute_major` guards against NVML reporting NVLink 5 on Hopper
// (compute capability 9), which has NVLink 4. Unknown (0) without links or a known generation.
LinkPeak nvlink_peak(int active_links, unsigned nvml_version_code, int compute_major);

// The same link used both ways at once.
LinkPeak both_directions(const LinkPeak& one_direction);

// A copy inside GPU memory reads and writes its size, so its size/time can reach half the
// memory's bandwidth.
LinkPeak copy_rate_peak(const LinkPeak& memory);

}  // namespace npgpu
