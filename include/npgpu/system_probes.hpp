#pragma once
// What only the modules can find out of the system: they hold the CUDA code.
// modules/system_probes.cpp fills it for collect_system_info (npgpu info and every record).
#include <functional>

#include "npgpu/gpu_inventory.hpp"

namespace npgpu {

struct SystemProbes {
  std::function<GpuInventory()> gpus;  // called once per host
};

SystemProbes system_probes();

}  // namespace npgpu
