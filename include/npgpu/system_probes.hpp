#pragma once
// What only the modules can find out of the system: they hold the CUDA code and MPI's extensions.
// modules/system_probes.cpp fills it for collect_system_info (npgpu info and every record).
#include <functional>
#include <string>

#include "npgpu/gpu_inventory.hpp"

namespace npgpu {

struct SystemProbes {
  std::function<GpuInventory()> gpus;  // called once per host
  std::string mpi_cuda_aware;
};

SystemProbes system_probes();

}  // namespace npgpu
