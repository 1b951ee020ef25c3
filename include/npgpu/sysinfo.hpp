#pragma once
// Where the run happened: hosts, cores, memory, libraries (Google Benchmark keeps this in one file).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "npgpu/team.hpp"

namespace npgpu {

struct RankPlacement {
  std::string host;
  std::string cpus;  // the cores this rank may run on, "0-3,8"
  std::vector<std::pair<std::string, std::string>> module_facts;  // Module::placement()
};

struct SystemInfo {
  std::vector<RankPlacement> ranks;  // index = rank (on rank 0; only its own elsewhere)
  int host_count = 1;
  std::string cpu_model;
  std::string kernel;
  std::uint64_t memory_bytes = 0;
  std::uint64_t last_level_cache_bytes = 0;
  int numa_nodes = 1;
  std::string mpi_library;
  std::vector<std::pair<std::string, std::string>> mpi_parameters;  // OMPI_MCA_* as name, value
  std::string hdf5_version;
};

// Collective: every rank reports its placement, and what the module says of it, to rank 0.
SystemInfo collect_system_info(const Team& team, const std::vector<std::pair<std::string, std::string>>& module_facts);

// Local facts, used before a run starts.
std::uint64_t physical_memory_bytes();
std::uint64_t last_level_cache_bytes();

}  // namespace npgpu
