#include "module_words.hpp"

namespace npgpu {

// Copies between two GPUs of a node over peer access: NVLink, or PCIe through a switch or the CPU.
PathWords p2p_words(const PlacementFacts&) {
  return {"the copy between the GPUs takes more DMA transfers from this size, or another route (NVLink, or PCIe "
          "through a switch or the CPU)",
          "the copy takes a faster route or more copy engines from this size (NVLink rather than PCIe)",
          "the copy reaches the rate of the link between the GPUs (NVLink or PCIe) from this size",
          "the route between the GPUs (path_gpuS_to_gpuD): peer access over PCIe or through the CPU rather than "
          "NVLink, fewer NVLinks than the GPUs have, or no peer access at all (CUDA's staged fallback)"};
}

}  // namespace npgpu
