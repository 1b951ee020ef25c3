#pragma once
// Whether the MPI library moves GPU buffers itself, and whether this build has CUDA: what mpi and
// mpiRma ask before they put messages in GPU memory.
#include "npgpu/mpi_cuda_awareness.hpp"

namespace npgpu {

// Whether this build has CUDA: GPU buffers need it whatever MPI says.
#ifdef NPGPU_HAVE_CUDA
inline constexpr bool kBuiltWithCuda = true;
#else
inline constexpr bool kBuiltWithCuda = false;
#endif

}  // namespace npgpu
