#pragma once
// What every GPU test needs: whether this machine has the GPUs it asks for.
#include <filesystem>
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

// npgpu beside this test's folder (build/tests/..), so a build folder copied elsewhere still runs.
inline std::string npgpu_binary() {
  if (std::filesystem::exists(NPGPU_BINARY)) return NPGPU_BINARY;
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "npgpu").string();
}

inline std::string mpirun() { return std::filesystem::exists(NPGPU_MPIEXEC) ? NPGPU_MPIEXEC : "mpirun"; }

}  // namespace npgpu::test
