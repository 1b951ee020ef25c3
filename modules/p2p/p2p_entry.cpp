// p2p's catalog entry, and what a break or a shortfall means on its path.
#include "cuda_common/gated_entry.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"
#include "p2p/p2p_options.hpp"

namespace npgpu {

std::unique_ptr<Module> make_p2p_module();  // p2p_module.cpp, built with CUDA only

namespace {

// Copies between two GPUs of a node over peer access: NVLink, or PCIe through a switch or the CPU.
PathWords p2p_words(const PlacementFacts&) {
  return {"the copy between the GPUs takes more DMA transfers from this size, or another route (NVLink, or PCIe "
          "through a switch or the CPU)",
          "the copy takes a faster route or more copy engines from this size (NVLink rather than PCIe)",
          "the copy reaches the rate of the link between the GPUs (NVLink or PCIe) from this size",
          "the route between the GPUs (path_gpuS_to_gpuD): peer access over PCIe or through the CPU rather than "
          "NVLink, fewer NVLinks than the GPUs have, or no peer access at all (CUDA's staged fallback)"};
}

}  // namespace

NPGPU_MODULE(p2p) {
  return {{{"p2p", "copies between two GPUs of a node over peer access (NVLink or PCIe); run it with one rank",
            Layout::per_rank, {Pattern::stream, Pattern::pingpong, Pattern::bidir}, 512 * MiB, "CUDA", p2p_words,
            declare_p2p_options},
           NPGPU_NEEDS_CUDA(make_p2p_module, p2p_unavailable_here)}};
}

}  // namespace npgpu
