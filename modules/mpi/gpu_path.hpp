#pragma once
// How mpi moves GPU buffers, decided from the options and what the MPI library says of itself.
// Pure functions, so they are tested on machines without GPUs.
#include <string>

#include "mpi_common/cuda_awareness.hpp"

namespace npgpu {

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
