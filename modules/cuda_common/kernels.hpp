#pragma once
// The few kernels npgpu runs (nvbandwidth keeps its kernels in one place too), behind plain C++
// launchers so the modules compile without nvcc. Each launcher checks its launch.
#include <cuda_runtime.h>

#include <cstdint>

namespace npgpu {

// Loads the kernels below on the current GPU now. With lazy loading (CUDA's default) a kernel's
// first launch loads it, and a load behind a spinning kernel would wait for it, which waits for
// the host: a launch behind the closed gate must never be a first one.
void prepare_kernels();

// One thread that spins until the host writes nonzero to gate[0] (mapped pinned memory, seen
// through `gate_on_gpu`), or until `timeout_s` has passed, in which case it writes 1 to gate[1].
void launch_gate_spin(int* gate_on_gpu, double timeout_s, cudaStream_t stream);

// Copies exactly `bytes` from `from` to `to` (both 16-byte aligned, on this GPU, a peer or mapped
// host memory) with 16-byte accesses on a grid sized from `multiprocessors` (sm_copy_plan.hpp).
void launch_sm_copy(void* to, const void* from, std::uint64_t bytes, int multiprocessors, cudaStream_t stream);

}  // namespace npgpu
