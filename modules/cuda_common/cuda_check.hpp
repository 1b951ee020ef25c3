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

// A driver API function found through the runtime, so that nothing links libcuda (see
// modules/CMakeLists.txt); `name` without its version suffix ("cuMemcpyHtoD").
template <typename Function>
Function driver_function(const char* name) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  check_cuda(cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found), name);
  if (found != cudaDriverEntryPointSuccess || function == nullptr)
    throw RunError(std::string("the CUDA driver has no ") + name);
  return reinterpret_cast<Function>(function);
}

inline void check_cu(CUresult status, const char* what) {
  if (status == CUDA_SUCCESS) return;
  const char* name = "unknown error";
  driver_function<decltype(&cuGetErrorName)>("cuGetErrorName")(status, &name);
  throw RunError(std::string(what) + ": " + name);
}

}  // namespace npgpu
