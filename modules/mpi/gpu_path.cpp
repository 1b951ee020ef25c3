#include "mpi/gpu_path.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "npgpu/errors.hpp"

namespace npgpu {

CudaAwareness mpi_cuda_awareness() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return {true, MPIX_Query_cuda_support() == 1};
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  return {false, MPIX_Query_cuda_support() == 1};
#else
  return {};  // no way to ask this MPI: assume it is not CUDA-aware
#endif
}

bool is_cuda_aware(CudaAwareness awareness) { return awareness.built && awareness.at_run_time; }

namespace {

std::string why_not_aware(CudaAwareness awareness) {
  if (awareness.built) return "built with CUDA support, but MPIX_Query_cuda_support() says it is off";
  return "built without CUDA support: MPIX_CUDA_AWARE_SUPPORT is 0 or missing in <mpi-ext.h>";
}

}  // namespace

std::string describe(CudaAwareness awareness) {
  if (is_cuda_aware(awareness)) return "yes: built with CUDA support, enabled at run time";
  return "no: " + why_not_aware(awareness);
}

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
