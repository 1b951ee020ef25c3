#pragma once
// The GPUs of a node as npgpu info and the record show them. Plain data: filled by the CUDA
// modules' code (modules/cuda_common/gpu_inventory.cpp), read by code that knows no CUDA.
#include <cstdint>
#include <string>
#include <vector>

#include "npgpu/gpu_binding.hpp"

namespace npgpu {

struct GpuFacts {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  std::string compute_capability;  // "9.0"
  int numa_node = -1;
  std::string local_cpus;
  PciLink pcie;
  LinkPeak pcie_peak;               // of the current link, one direction
  std::uint64_t memory_bytes = 0;
  LinkPeak memory_bandwidth;        // memory clock x bus width x 2
  int nvlinks_active = 0;
  LinkPeak nvlink_peak;             // all active links, one direction; how = why unknown
};

struct GpuPairFacts {
  int from = 0;
  int to = 0;
  bool peer_access = false;  // cudaDeviceCanAccessPeer(from, to)
  std::string path;          // over NVLink (links and speed), over PCIe, or NO PEER ACCESS
  LinkPeak peak;             // one direction
};

struct GpuInventory {
  std::string unavailable;     // "" when CUDA answered, else why there are no GPU facts
  std::string cuda_driver;     // "13.0"; "none" without a driver
  std::string cuda_runtime;    // the runtime npgpu was built with
  std::vector<GpuFacts> gpus;
  std::vector<GpuPairFacts> pairs;  // every ordered pair of distinct GPUs
};

}  // namespace npgpu
