#pragma once
// Every CUDA call's status is checked; a failure becomes a RunError naming the call.
#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

#include "npgpu/errors.hpp"

namespace npgpu {

inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw RunError(std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

inline void check_cu(CUresult status, const char* what) {
  if (status == CUDA_SUCCESS) return;
  const char* name = "unknown error";
  cuGetErrorName(status, &name);
  throw RunError(std::string(what) + ": " + name);
}

}  // namespace npgpu
