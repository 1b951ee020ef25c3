#include "mpi_common/device_buffers.hpp"

#include "npgpu/errors.hpp"

#ifdef NPGPU_HAVE_CUDA
#include "cuda_common/gpu.hpp"
#include "cuda_common/gpu_options.hpp"
#include "pair/message_memory.hpp"
#endif

namespace npgpu {

#ifdef NPGPU_HAVE_CUDA

DeviceBuffers open_device_buffers(const Team& team, const RunView& run, const std::string& buffers, int device,
                                  std::uint64_t max_bytes) {
  Gpu gpu;
  try {
    gpu = open_gpu(team, chosen_device(device), run.gpus_in_turn);
  } catch (const UsageError& error) {
    throw UsageError("--buffers " + buffers + " puts this rank's messages in GPU memory, but " + error.what());
  }
  const bool cold = run.cache == CacheState::cold;
  const std::uint64_t pool = rotation_pool_bytes(max_bytes, gpu.l2_bytes, cold);
  return {make_device_message_memory(pool, cold, max_bytes), gpu_facts(gpu)};
}

#else

DeviceBuffers open_device_buffers(const Team&, const RunView&, const std::string& buffers, int, std::uint64_t) {
  throw UsageError("--buffers " + buffers + ": GPU buffers need CUDA, and this build has none");
}

#endif

}  // namespace npgpu
