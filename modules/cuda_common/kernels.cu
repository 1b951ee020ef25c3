#include <cstdint>
#include <string>

#include "cuda_check.hpp"
#include "kernels.hpp"
#include "sm_copy_plan.hpp"

namespace npgpu {
namespace {

__device__ std::uint64_t global_nanoseconds() {
  std::uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void gate_spin(volatile int* gate, std::uint64_t timeout_ns) {
  const std::uint64_t start = global_nanoseconds();
  while (gate[0] == 0) {
    if (global_nanoseconds() - start > timeout_ns) {
      gate[1] = 1;
      return;
    }
  }
}

__global__ void sm_copy(uint4* __restrict__ to, const uint4* __restrict__ from, std::uint64_t vectors,
                        unsigned tail_bytes) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride)
    to[i] = from[i];
  if (blockIdx.x == 0 && threadIdx.x < tail_bytes) {
    auto* tail_to = reinterpret_cast<unsigned char*>(to + vectors);
    const auto* tail_from = reinterpret_cast<const unsigned char*>(from + vectors);
    tail_to[threadIdx.x] = tail_from[threadIdx.x];
  }
}

}  // namespace

void prepare_kernels() {
  cudaFuncAttributes attributes{};
  check_cuda(cudaFuncGetAttributes(&attributes, gate_spin), "loading the gate's spin kernel");
  check_cuda(cudaFuncGetAttributes(&attributes, sm_copy), "loading the SM copy kernel");
}

void launch_gate_spin(int* gate_on_gpu, double timeout_s, cudaStream_t stream) {
  gate_spin<<<1, 1, 0, stream>>>(gate_on_gpu, static_cast<std::uint64_t>(timeout_s * 1e9));
  check_cuda(cudaGetLastError(), "launching the gate's spin kernel");
}

void launch_sm_copy(void* to, const void* from, std::uint64_t bytes, int multiprocessors, cudaStream_t stream) {
  const auto misaligned = (reinterpret_cast<std::uintptr_t>(to) | reinterpret_cast<std::uintptr_t>(from)) %
                          kSmCopyVectorBytes;
  if (misaligned != 0) throw RunError("SM copy: buffers must start on 16-byte boundaries");
  const SmCopySplit split = split_sm_copy(bytes);
  sm_copy<<<sm_copy_blocks(multiprocessors, split.vectors), kSmCopyThreads, 0, stream>>>(
      static_cast<uint4*>(to), static_cast<const uint4*>(from), split.vectors, static_cast<unsigned>(split.tail_bytes));
  check_cuda(cudaGetLastError(), "launching the SM copy kernel");
}

}  // namespace npgpu
