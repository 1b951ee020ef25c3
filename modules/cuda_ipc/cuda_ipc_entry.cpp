// cudaIpc's catalog entry, and what a break or a shortfall means on its path.
#include "cuda_common/gated_entry.hpp"
#include "cuda_common/gpu_options.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

std::unique_ptr<Module> make_cuda_ipc_module();  // cuda_ipc_module.cpp, built with CUDA only

namespace {

// One GPU copies into another rank's GPU memory, mapped by CUDA IPC, with an MPI handshake per copy.
// "; here peer access was ..." where the run recorded it.
std::string recorded_access(const PlacementFacts& facts) {
  const std::string access = fact_of(facts, "peer_access");
  return access.empty() ? "" : "; here peer access was " + access;
}

PathWords cuda_ipc_words(const PlacementFacts& facts) {
  return {"the copy into the peer GPU's memory takes more DMA transfers from this size, or another route (NVLink, or "
          "PCIe through a switch or the CPU)",
          "the copy takes a faster route or more copy engines from this size (NVLink rather than PCIe)",
          "the copy reaches the rate of the link between the GPUs (NVLink or PCIe) from this size, the handshake per "
          "copy (an MPI message) no longer dominating",
          "the route between the GPUs (peer_access): PCIe or the CPU rather than NVLink, or the MPI handshake each "
          "copy waits for",
          {},
          "the route between the GPUs: the copy crosses PCIe or the CPU where the copy between them in one process "
          "(p2p) takes NVLink, or the GPUs do not reach each other peer to peer from these processes (peer_access; "
          "a container or the IOMMU can block it)" + recorded_access(facts)};
}

}  // namespace

NPGPU_MODULE(cuda_ipc) {
  return {{{"cudaIpc", "one GPU copies into another rank's GPU memory, mapped by CUDA IPC: ranks of one node (NVLink or PCIe)",
            Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 256 * MiB, "CUDA", cuda_ipc_words,
            declare_device_options},
           NPGPU_NEEDS_CUDA(make_cuda_ipc_module, cuda_unavailable_here)}};
}

}  // namespace npgpu
