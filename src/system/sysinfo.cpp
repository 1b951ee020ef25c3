#include "system/sysinfo.hpp"

#include <hdf5.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <stdexcept>

#include "npgpu/gpu_binding.hpp"
#include "npgpu/mpi_cuda_awareness.hpp"
#include "system/system_json.hpp"

extern char** environ;

namespace npgpu {
namespace {

std::string cpu_list(const cpu_set_t& set) {
  std::string text;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    text += (text.empty() ? "" : ",") + std::to_string(cpu) + (last > cpu ? "-" + std::to_string(last) : "");
    cpu = last;
  }
  return text;
}

std::string my_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "unknown";
  return cpu_list(set);
}

// What Open MPI 4.1's mpirun sets in every rank's environment (seen with `mpirun -np 2 env`):
// how the job was wired (daemon URIs, job and rank ids, session folders), not how MPI moves bytes.
// orte_* is the runtime's launch layer: mpirun sets a dozen, and one a user sets changes how
// ranks start, not how bytes move.
bool set_by_launcher(const std::string& name, const std::string& value) {
  static const std::set<std::string> kWiring{
      "ess", "ess_base_jobid", "ess_base_vpid", "initial_wdir", "pmix", "shmem_RUNTIME_QUERY_hint"};
  // Always set; only 1 (--oversubscribe: ranks may share cores) says something about the timings.
  if (name == "mpi_oversubscribe") return value == "0";
  return kWiring.count(name) > 0 || name.rfind("orte_", 0) == 0;
}

std::vector<std::string> environment_entries() {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) entries.emplace_back(*entry);
  return entries;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> user_mca_parameters(const std::vector<std::string>& environment) {
  std::vector<std::pair<std::string, std::string>> parameters;
  const std::string prefix = "OMPI_MCA_";
  for (const std::string& variable : environment) {
    const auto equals = variable.find('=');
    if (variable.rfind(prefix, 0) != 0 || equals == std::string::npos) continue;
    std::string name = variable.substr(prefix.size(), equals - prefix.size()), value = variable.substr(equals + 1);
    if (!set_by_launcher(name, value)) parameters.emplace_back(std::move(name), std::move(value));
  }
  std::sort(parameters.begin(), parameters.end());
  return parameters;
}

std::uint64_t physical_memory_bytes() {
  return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::uint64_t last_level_cache_bytes() {
  const std::uint64_t bytes = host_topology().last_level_cache_bytes;
  return bytes > 0 ? bytes : 32ull << 20;  // unknown: assume a common server L3
}

std::string mpi_host_name() {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  return std::string(host, static_cast<std::size_t>(length));
}

namespace {

HostFacts this_host(const std::string& name, const SystemProbes& probes) {
  HostFacts host;
  host.name = name;
  utsname system{};
  if (uname(&system) == 0) host.kernel = std::string(system.sysname) + " " + system.release + " " + system.machine;
  host.memory_bytes = physical_memory_bytes();
  host.topology = host_topology();
  host.network = network_interfaces();
  host.gpus = probes.gpus();
  return host;
}

std::string mpi_library() {
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(library, &length);
  std::string text(library, static_cast<std::size_t>(length));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

}  // namespace

SystemInfo collect_system_info(const Team& team, const std::vector<std::pair<std::string, std::string>>& module_facts,
                               const SystemProbes& probes) {
  const RankPlacement mine{mpi_host_name(), my_cpus(), module_facts, node_local_rank(team)};
  // The team's first rank on each host speaks for the host: hwloc and CUDA are asked once per machine.
  // Not the launcher's node-local rank 0, which counts every rank of the launch: a run under load
  // measures with some of them.
  const std::optional<HostFacts> host =
      rank_on_host(team) == 0 ? std::optional<HostFacts>(this_host(mine.host, probes)) : std::nullopt;
  const std::vector<std::string> reports =
      team.gather(rank_report(mine, host ? &*host : nullptr).dump());

  SystemInfo info;
  for (const std::string& report : reports) {
    RankPlacement placement;
    std::optional<HostFacts> reported;
    read_rank_report(nlohmann::json::parse(report), placement, reported);
    info.ranks.push_back(std::move(placement));
    if (reported) info.hosts.push_back(std::move(*reported));
  }
  info.host_count = std::max<int>(1, static_cast<int>(info.hosts.size()));
  info.mpi_library = mpi_library();
  info.mpi_cuda_aware = describe(mpi_cuda_awareness());
  info.mpi_parameters = user_mca_parameters(environment_entries());
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  info.hdf5_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
  return info;
}

const HostFacts& host_of(const SystemInfo& info, int rank) {
  const std::string& name = info.ranks.at(static_cast<std::size_t>(rank)).host;
  for (const HostFacts& host : info.hosts)
    if (host.name == name) return host;
  throw std::logic_error("no facts of host " + name + ", where rank " + std::to_string(rank) + " ran");
}

int default_gpu(int node_local_rank, int gpus_on_host) { return node_local_rank < gpus_on_host ? node_local_rank : -1; }

}  // namespace npgpu
