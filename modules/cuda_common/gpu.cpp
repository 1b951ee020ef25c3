#include "gpu.hpp"

#include <cstdio>

#include "cuda_check.hpp"
#include "npgpu/link_peaks.hpp"
#include "streams.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

std::string uuid_text(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    text += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) text += '-';
  }
  return text;
}

}  // namespace

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

int cuda_device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

std::string cuda_unavailable_here() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string("no CUDA GPU (") + cudaGetErrorString(status) + ")";
  return count > 0 ? "" : "no CUDA GPU";
}

std::string p2p_unavailable_here() {
  const int count = cuda_device_count();
  if (count >= 2) return "";
  return "p2p copies between two GPUs, and this node has " + std::string(count == 0 ? "no CUDA GPU" : "1 GPU");
}

Gpu open_gpu(const Team& team, std::optional<int> device, bool in_turn) {
  const int local_rank = node_local_rank(team);
  Gpu gpu = open_gpu_index(choose_device(local_rank, device, cuda_device_count(), in_turn));
  gpu.local_rank = local_rank;
  return gpu;
}

Gpu describe_gpu(int index) {
  Gpu gpu;
  gpu.index = index;
  char bus_id[64] = {};
  check_cuda(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, gpu.index), "cudaDeviceGetPCIBusId");
  gpu.pci_bus_id = bus_id;
  gpu.pci = pci_neighbourhood(gpu.pci_bus_id);
  // Queries of the device, not of a context: none is made here.
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, gpu.index), "cudaGetDeviceProperties");
  gpu.name = properties.name;
  gpu.uuid = uuid_text(properties.uuid);
  gpu.compute_major = properties.major;
  gpu.compute_minor = properties.minor;
  gpu.multiprocessors = properties.multiProcessorCount;
  gpu.l2_bytes = static_cast<std::size_t>(properties.l2CacheSize);
  gpu.memory_bytes = properties.totalGlobalMem;
  check_cuda(cudaDeviceGetAttribute(&gpu.memory_clock_khz, cudaDevAttrMemoryClockRate, gpu.index),
             "reading the memory clock");
  check_cuda(cudaDeviceGetAttribute(&gpu.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, gpu.index),
             "reading the memory bus width");
  check_cuda(cudaDriverGetVersion(&gpu.driver_version), "cudaDriverGetVersion");
  check_cuda(cudaRuntimeGetVersion(&gpu.runtime_version), "cudaRuntimeGetVersion");
  return gpu;
}

Gpu open_gpu_index(int index) {
  Gpu gpu = describe_gpu(index);
  // Bind before the context and pinned buffers exist, so both land on the GPU's NUMA node.
  gpu.bound_near = bind_to_cpus(gpu.pci.local_cpus);
  check_cuda(cudaSetDevice(gpu.index), "cudaSetDevice");
  check_cuda(cudaFree(nullptr), "creating the CUDA context");
  return gpu;
}

std::vector<std::pair<std::string, std::string>> gpu_facts(const Gpu& gpu) {
  const LinkPeak link = host_link_peak(gpu);
  return {{"gpu", std::to_string(gpu.index)},
          {"gpu_name", gpu.name},
          {"gpu_uuid", gpu.uuid},
          {"gpu_pci_bus_id", gpu.pci_bus_id},
          {"gpu_numa_node", std::to_string(gpu.pci.numa_node)},
          {"gpu_pcie_upstream", gpu.pci.upstream.empty() ? "unknown" : gpu.pci.upstream},
          {"gpu_local_cpus", gpu.pci.local_cpus.empty() ? "unknown" : gpu.pci.local_cpus},
          {"thread_bound_near_gpu", gpu.bound_near ? "yes" : "no"},
          {"node_local_rank", std::to_string(gpu.local_rank)},
          {"gpu_memory", format_capacity(gpu.memory_bytes)},
          {"gpu_l2", format_capacity(gpu.l2_bytes)},
          {"pcie_link", link.how.empty() ? "unknown" : link.how},
          {"cuda_driver", cuda_version_text(gpu.driver_version)},
          {"cuda_runtime", cuda_version_text(gpu.runtime_version)}};
}

void require_gpu_memory(const Gpu& gpu, std::uint64_t bytes, const std::string& module) {
  const CurrentDevice current(gpu.index);
  std::size_t free = 0, total = 0;
  check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  if (bytes <= free) return;
  throw UsageError("--upper: module " + module + " needs " + format_capacity(bytes) + " of memory on GPU " +
                   std::to_string(gpu.index) + " (" + gpu.name + "), which has " + format_capacity(free) +
                   " free; choose a smaller --upper");
}

LinkPeak memory_peak(const Gpu& gpu) {
  // Double data rate: two transfers per pin per memory clock.
  return memory_bus_peak(gpu.memory_bus_bits, 2 * gpu.memory_clock_khz * 1e3,
                         "memory clock " + std::to_string(gpu.memory_clock_khz / 1000) + " MHz, double data rate");
}

LinkPeak host_link_peak(const Gpu& gpu) { return pcie_peak(gpu.pci.link.gts, gpu.pci.link.width); }

}  // namespace npgpu
