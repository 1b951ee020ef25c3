// cudaMemcpy's and cuMemcpy's catalog entries, and what a break or a shortfall means on their path.
#include "cuda_common/gated_entry.hpp"
#include "cuda_copy/copy_options.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

std::unique_ptr<Module> make_cuda_memcpy_module();  // cuda_copy_module.cpp, built with CUDA only
std::unique_ptr<Module> make_cu_memcpy_module();

namespace {

// A copy inside one GPU: its caches, its memory, and the cost of starting each copy.
PathWords local_words(bool kernel) {
  const std::string launch = kernel ? "the copy kernel's launch and grid (--copy sm)" : "the copy engine's setup per copy";
  return {"the copy outgrows the GPU's L2 cache (gpu_l2) and runs at its memory's rate, or " + launch +
              " grows at this size",
          "the copy is spread over more of the GPU from this size, so " + launch + " is shared out",
          "the copy leaves the GPU's L2 cache for its memory (HBM or GDDR), whose bandwidth takes over, or " + launch +
              " stops dominating",
          "a copy inside one GPU reading and writing every byte, so memory carries twice its size, and " + launch +
              " on small copies"};
}

// Pageable host memory: the driver copies it through pinned buffers of its own.
PathWords pageable_words() {
  return {"the driver stages pageable memory through its own pinned buffers, chunk by chunk, and from this size it "
          "takes one chunk more or another method",
          "the driver stages pageable memory another way from this size (larger pinned chunks, or pinning the pages)",
          "the driver's staging copy through pinned buffers, a host memcpy, sets the rate from this size, not the link",
          "the driver's staging of pageable memory through pinned buffers, a host memcpy beside every transfer "
          "(--memory pinned shows what the link gives)"};
}

// Pinned, registered or write-combined host memory, moved over the host link by the copy engine's
// DMA or by the copy kernel's loads and stores.
PathWords link_words(bool kernel) {
  const std::string mover = kernel ? "the copy kernel (--copy sm)" : "the copy engine's DMA";
  return {mover + " needs more work per copy from this size: more DMA transfers, descriptors or blocks",
          mover + " moves the copy in larger pieces from this size",
          mover + " reaches the host link's rate (PCIe, or the CPU-GPU link) from this size, the setup of each copy "
                  "no longer dominating",
          "the host link as trained (pcie_link: its width and generation), host memory on another NUMA node than the "
          "GPU (host_memory_numa_node, gpu_numa_node), or an IOMMU"};
}

PathWords cuda_copy_words(const PlacementFacts& facts) {
  const bool kernel = fact_of(facts, "copy").rfind("SM copy kernel", 0) == 0;
  if (fact_of(facts, "direction") == "d2d") return local_words(kernel);
  return fact_of(facts, "host_memory").rfind("pageable", 0) == 0 ? pageable_words() : link_words(kernel);
}

}  // namespace

NPGPU_MODULE(cuda_copy) {
  return {{{"cudaMemcpy", "copies between host memory and this rank's GPU, or inside it (CUDA runtime API, copy engine or SM kernel)",
            Layout::per_rank, {Pattern::stream, Pattern::pingpong, Pattern::bidir}, 512 * MiB, "CUDA", cuda_copy_words,
            declare_cuda_memcpy_options},
           NPGPU_NEEDS_CUDA(make_cuda_memcpy_module, cuda_unavailable_here)},
          {{"cuMemcpy", "the same copies through the CUDA driver API (cuMemcpyHtoD, DtoH, DtoD), copy engine",
            Layout::per_rank, {Pattern::stream, Pattern::pingpong, Pattern::bidir}, 512 * MiB, "CUDA", cuda_copy_words,
            declare_cu_memcpy_options},
           NPGPU_NEEDS_CUDA(make_cu_memcpy_module, cuda_unavailable_here)}};
}

}  // namespace npgpu
