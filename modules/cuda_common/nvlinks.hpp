#pragma once
// What NVML says of a GPU's NVLinks, read through libnvidia-ml.so.1 at run time (the toolkit has
// no nvml.h, and a machine without the driver's NVML must still run npgpu). Reads only.
#include <string>

namespace npgpu {

struct NvLinks {
  bool known = false;         // NVML answered
  int active = 0;             // links up
  unsigned version_code = 0;  // nvmlNvlinkVersion_t of the first active link
  std::string why_unknown;    // when !known
};

// The GPU with this PCI bus id ("0000:1b:00.0").
NvLinks nvlinks_of(const std::string& pci_bus_id);

}  // namespace npgpu
