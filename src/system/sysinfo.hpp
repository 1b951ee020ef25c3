#pragma once
// Where a run happens: hosts, cores, memory, GPUs, networks, libraries, and which rank sits where.
// One collection serves both npgpu info and every run's record (Google Benchmark keeps this in
// one file; here hwloc, sysfs and CUDA each have theirs, and this one puts them together).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "npgpu/gpu_inventory.hpp"
#include "npgpu/system_probes.hpp"
#include "system/host_topology.hpp"
#include "npgpu/network_interfaces.hpp"
#include "npgpu/team.hpp"

namespace npgpu {

struct HostFacts {
  std::string name;
  std::string kernel;
  std::uint64_t memory_bytes = 0;  // what the kernel manages (MemTotal); NUMA nodes may list less
  HostTopology topology;
  std::vector<NetworkInterface> network;
  GpuInventory gpus;
};

struct RankPlacement {
  std::string host;
  std::string cpus;  // the cores this rank may run on, "0-3,8"
  std::vector<std::pair<std::string, std::string>> module_facts;  // Module::placement()
  int node_local_rank = 0;
};

struct SystemInfo {
  std::vector<RankPlacement> ranks;  // index = rank (on rank 0; empty elsewhere)
  std::vector<HostFacts> hosts;      // one per host, in the order of their first rank (on rank 0)
  int host_count = 1;
  std::string mpi_library;
  std::string mpi_cuda_aware;        // "yes: ..." or "no: ..."
  std::vector<std::pair<std::string, std::string>> mpi_parameters;  // OMPI_MCA_* as name, value
  std::string hdf5_version;
};

// Collective: every rank reports its placement, and what the module says of it, to rank 0; the
// first rank of each host reports that host.
SystemInfo collect_system_info(const Team& team, const std::vector<std::pair<std::string, std::string>>& module_facts,
                               const SystemProbes& probes);

// This rank's host, as MPI names it (the name every record uses).
std::string mpi_host_name();
// The host a rank ran on (on rank 0).
const HostFacts& host_of(const SystemInfo& info, int rank);
// The GPU a rank takes unless told otherwise (its node-local rank's, as the GPU modules choose),
// -1 when its host has too few GPUs.
int default_gpu(int node_local_rank, int gpus_on_host);

// The MCA parameters a user set, as name, value, sorted, from "NAME=VALUE" environment entries:
// OMPI_MCA_* less the launch wiring Open MPI's mpirun puts in every rank's environment itself.
std::vector<std::pair<std::string, std::string>> user_mca_parameters(const std::vector<std::string>& environment);

// Local facts, used before a run starts.
std::uint64_t physical_memory_bytes();
std::uint64_t last_level_cache_bytes();

}  // namespace npgpu
