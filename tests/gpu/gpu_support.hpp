#pragma once
// What every GPU test needs: whether this machine has the GPUs it asks for.
#include <string>

#include "cuda_common/gpu.hpp"

namespace npgpu::test {

// "" when there are `needed` GPUs, else why the test is skipped.
inline std::string missing_gpus(int needed) {
  const int count = cuda_device_count();
  if (count >= needed) return "";
  return "needs " + std::to_string(needed) + (needed == 1 ? " CUDA GPU" : " CUDA GPUs") + ", this machine has " +
         std::to_string(count) + ": the gpu-labelled tests run on a GPU machine (bench/gpu_tests.sh)";
}

}  // namespace npgpu::test
