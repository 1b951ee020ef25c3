#pragma once
// How mpi moves GPU buffers, decided from the options and what the MPI library says of itself.
// Pure functions (but mpi_cuda_awareness), so they are tested on machines without GPUs.
#include <string>

namespace npgpu {

// Whether this MPI hands GPU pointers on safely: at build time (Open MPI's <mpi-ext.h> defines
// MPIX_CUDA_AWARE_SUPPORT) and at run time (MPIX_Query_cuda_support()).
struct CudaAwareness {
  bool built = false;
  bool at_run_time = false;
};
CudaAwareness mpi_cuda_awareness();

// Whether this build has CUDA: GPU buffers need it whatever MPI says.
#ifdef NPGPU_HAVE_CUDA
inline constexpr bool kBuiltWithCuda = true;
#else
inline constexpr bool kBuiltWithCuda = false;
#endif
bool is_cuda_aware(CudaAwareness awareness);
std::string describe(CudaAwareness awareness);  // "no: built without CUDA support (...)", ...

enum class GpuPath { host, direct, staged };  // host: neither rank has GPU memory

struct GpuPathChoice {
  GpuPath path = GpuPath::host;
  std::string why;  // for the record: which path, and why auto chose it
};

// requested: auto, direct or staged. UsageError, one line, for direct on an MPI not CUDA-aware
// (OSU's benchmarks segfault there; npgpu refuses before any transfer).
GpuPathChoice choose_gpu_path(const std::string& requested, CudaAwareness awareness);

// Where each side's messages live, from --buffers ("D,H": the first rank of each pair device, the
// second host); side 0 or 1.
bool side_uses_device(const std::string& buffers, int side);

}  // namespace npgpu
