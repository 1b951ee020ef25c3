#include "npgpu/system_probes.hpp"

#ifdef NPGPU_HAVE_CUDA
#include "cuda_common/gpu_inventory.hpp"
#endif

namespace npgpu {
namespace {

#ifndef NPGPU_HAVE_CUDA
GpuInventory gpu_inventory() {
  GpuInventory none;
  none.unavailable = "this build has no CUDA (built with NPGPU_CUDA=OFF or without nvcc)";
  return none;
}
#endif

}  // namespace

SystemProbes system_probes() { return {gpu_inventory}; }

}  // namespace npgpu
