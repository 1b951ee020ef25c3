#include "gpu_inventory.hpp"

#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "gpu.hpp"
#include "gpu_pair_path.hpp"
#include "npgpu/link_peaks.hpp"
#include "nvlinks.hpp"

namespace npgpu {
namespace {

GpuFacts facts_of(const Gpu& gpu, const NvLinks& links) {
  GpuFacts facts;
  facts.index = gpu.index;
  facts.name = gpu.name;
  facts.uuid = gpu.uuid;
  facts.pci_bus_id = gpu.pci_bus_id;
  facts.compute_capability = std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor);
  facts.numa_node = gpu.pci.numa_node;
  facts.local_cpus = gpu.pci.local_cpus;
  facts.pcie = gpu.pci.link;
  facts.pcie_peak = host_link_peak(gpu);
  facts.memory_bytes = gpu.memory_bytes;
  facts.memory_bandwidth = memory_peak(gpu);
  facts.nvlinks_active = links.active;
  facts.nvlink_peak = !links.known       ? LinkPeak{0, "unknown: " + links.why_unknown}
                      : links.active == 0 ? LinkPeak{0, "no active NVLink"}
                                          : nvlink_peak(links.active, links.version_code, gpu.compute_major);
  return facts;
}

}  // namespace

GpuInventory gpu_inventory() {
  GpuInventory inventory;
  int version = 0;
  inventory.cuda_runtime = cudaRuntimeGetVersion(&version) == cudaSuccess ? cuda_version_text(version) : "unknown";
  inventory.cuda_driver = cudaDriverGetVersion(&version) == cudaSuccess && version > 0 ? cuda_version_text(version)
                                                                                       : "none";
  inventory.unavailable = cuda_unavailable_here();
  if (!inventory.unavailable.empty()) return inventory;
  std::vector<Gpu> gpus;
  std::vector<NvLinks> links;
  for (int index = 0; index < cuda_device_count(); ++index) {
    gpus.push_back(describe_gpu(index));
    links.push_back(nvlinks_of(gpus.back().pci_bus_id));
    inventory.gpus.push_back(facts_of(gpus.back(), links.back()));
  }
  for (std::size_t from = 0; from < gpus.size(); ++from)
    for (std::size_t to = 0; to < gpus.size(); ++to) {
      if (from == to) continue;
      int can = 0;
      check_cuda(cudaDeviceCanAccessPeer(&can, gpus[from].index, gpus[to].index), "cudaDeviceCanAccessPeer");
      const GpuPairPath path = gpu_pair_path({gpus[from], links[from]}, {gpus[to], links[to]}, can != 0);
      inventory.pairs.push_back({gpus[from].index, gpus[to].index, can != 0, path.text, path.peak});
    }
  return inventory;
}

}  // namespace npgpu
