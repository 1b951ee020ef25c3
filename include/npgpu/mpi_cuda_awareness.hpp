#pragma once
// Whether the MPI library moves GPU buffers itself: what mpi and mpiRma ask before they put messages
// in GPU memory, and what every record says of the MPI. MPI's extension, no CUDA code.
#include <string>

namespace npgpu {

// Whether this MPI hands GPU pointers on safely: at build time (Open MPI's <mpi-ext.h> defines
// MPIX_CUDA_AWARE_SUPPORT) and at run time (MPIX_Query_cuda_support()).
struct CudaAwareness {
  bool built = false;
  bool at_run_time = false;
};
CudaAwareness mpi_cuda_awareness();

bool is_cuda_aware(CudaAwareness awareness);
std::string describe(CudaAwareness awareness);  // "no: built without CUDA support (...)", ...
// Why an MPI is not CUDA-aware: "built without CUDA support: ...".
std::string why_not_aware(CudaAwareness awareness);

}  // namespace npgpu
