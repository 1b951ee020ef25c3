#include "npgpu/mpi_cuda_awareness.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

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

std::string why_not_aware(CudaAwareness awareness) {
  if (awareness.built) return "built with CUDA support, but MPIX_Query_cuda_support() says it is off";
  return "built without CUDA support: MPIX_CUDA_AWARE_SUPPORT is 0 or missing in <mpi-ext.h>";
}

std::string describe(CudaAwareness awareness) {
  if (is_cuda_aware(awareness)) return "yes: built with CUDA support, enabled at run time";
  return "no: " + why_not_aware(awareness);
}

}  // namespace npgpu
