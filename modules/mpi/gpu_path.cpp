#include "mpi/gpu_path.hpp"

#include "npgpu/errors.hpp"

namespace npgpu {

GpuPathChoice choose_gpu_path(const std::string& requested, CudaAwareness awareness) {
  const bool aware = is_cuda_aware(awareness);
  if (requested == "direct") {
    if (!aware)
      throw UsageError("--gpu-path direct: this MPI is not CUDA-aware (" + why_not_aware(awareness) +
                       "), so it cannot take GPU pointers; use --gpu-path staged or auto");
    return {GpuPath::direct, "direct (asked for): MPI moves the GPU buffers itself"};
  }
  if (requested == "staged")
    return {GpuPath::staged, "staged (asked for): copies through pinned host buffers around host MPI"};
  if (aware) return {GpuPath::direct, "direct (auto: MPI is CUDA-aware)"};
  return {GpuPath::staged, "staged (auto: MPI is not CUDA-aware, so copies go through pinned host buffers)"};
}

bool side_uses_device(const std::string& buffers, int side) { return buffers.at(side == 0 ? 0 : 2) == 'D'; }

}  // namespace npgpu
