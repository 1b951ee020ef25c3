#pragma once
// The GPU a rank measures: chosen from the node-local rank or --device, made current, with the
// measuring thread moved next to it; and what the record says about it.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "npgpu/gpu_binding.hpp"
#include "npgpu/module.hpp"
#include "npgpu/team.hpp"

namespace npgpu {

struct Gpu {
  int index = 0;
  int local_rank = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  PciNeighbourhood pci;
  bool bound_near = false;    // the thread now runs on the GPU's local cores
  int compute_major = 0;       // compute capability, major part (9: Hopper)
  int compute_minor = 0;
  int multiprocessors = 0;
  std::size_t l2_bytes = 0;
  std::size_t memory_bytes = 0;
  int memory_clock_khz = 0;   // for the theoretical memory bandwidth
  int memory_bus_bits = 0;
  int driver_version = 0;
  int runtime_version = 0;
};

// Collective only when the launcher does not say the node-local rank (MPI_Comm_split_type).
// UsageError when there is no GPU for this rank.
Gpu open_gpu(const Team& team, std::optional<int> device, bool in_turn);
// GPU `index` made current, the thread moved next to it (modules that use several GPUs).
Gpu open_gpu_index(int index);
// What GPU `index` is and where it sits, without making it current or creating a context.
Gpu describe_gpu(int index);

// UsageError naming --upper when `bytes` more would not fit in the GPU's free memory.
void require_gpu_memory(const Gpu& gpu, std::uint64_t bytes, const std::string& module);

// "" when this machine has a CUDA GPU, else why not (for the catalog).
std::string cuda_unavailable_here();
int cuda_device_count();
// "" when this node has two GPUs or more (for p2p's catalog entry).
std::string p2p_unavailable_here();

// The record's facts: GPU index, name, UUID, PCI bus id, NUMA node, cores, CUDA versions.
std::vector<std::pair<std::string, std::string>> gpu_facts(const Gpu& gpu);

// "13.0" from CUDA's 13000.
std::string cuda_version_text(int version);

// Memory clock x bus width x 2 (double data rate), the seeds' formula.
LinkPeak memory_peak(const Gpu& gpu);
// The GPU's PCIe link to the host, from sysfs.
LinkPeak host_link_peak(const Gpu& gpu);

}  // namespace npgpu
