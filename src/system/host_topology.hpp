#pragma once
// What hwloc says of this host: packages (sockets), cores, NUMA nodes and their memory, and where
// a PCI device sits. hwloc is the field's library for it (Open MPI places ranks with it), so npgpu
// and the MPI it runs under read the machine the same way.
#include <cstdint>
#include <string>
#include <vector>

namespace npgpu {

struct NumaNode {
  int index = 0;
  std::uint64_t memory_bytes = 0;  // local memory, as hwloc reads it from the node's meminfo
  std::string cpus;                // "0-15,32-47"
};

struct HostTopology {
  std::string cpu_model;
  int sockets = 0;
  int cores = 0;
  int hardware_threads = 0;
  std::vector<NumaNode> numa_nodes;
  std::uint64_t last_level_cache_bytes = 0;  // 0: hwloc found no cache
  std::string hwloc_version;                 // of the library loaded at run time
};

// Where a PCI device ("0000:1b:00.0", any case, 4- or 8-digit domain) sits: the nearest NUMA node
// (-1 unknown) and the cores that share it ("" unknown).
struct PciLocality {
  bool found = false;
  int numa_node = -1;
  std::string local_cpus;
};

// The machine this process runs on, read once per process (hwloc's discovery costs milliseconds).
HostTopology host_topology();
PciLocality pci_locality(const std::string& pci_bus_id);

}  // namespace npgpu
