#include "module_words.hpp"

namespace npgpu {

// One GPU copies into another rank's GPU memory, mapped by CUDA IPC, with an MPI handshake per copy.
PathWords cuda_ipc_words(const PlacementFacts&) {
  return {"the copy into the peer GPU's memory takes more DMA transfers from this size, or another route (NVLink, or "
          "PCIe through a switch or the CPU)",
          "the copy takes a faster route or more copy engines from this size (NVLink rather than PCIe)",
          "the copy reaches the rate of the link between the GPUs (NVLink or PCIe) from this size, the handshake per "
          "copy (an MPI message) no longer dominating",
          "the route between the GPUs (peer_access): PCIe or the CPU rather than NVLink, or the MPI handshake each "
          "copy waits for"};
}

}  // namespace npgpu
