#include "npgpu/sysinfo.hpp"

#include <hdf5.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

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

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

int numa_node_count() {
  std::error_code error;
  int nodes = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/node", error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("node", 0) == 0 && name.size() > 4 && std::isdigit(static_cast<unsigned char>(name[4]))) ++nodes;
  }
  return std::max(nodes, 1);
}

std::vector<std::pair<std::string, std::string>> mpi_parameters() {
  std::vector<std::pair<std::string, std::string>> parameters;
  const std::string prefix = "OMPI_MCA_";
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string variable = *entry;
    if (variable.rfind(prefix, 0) != 0) continue;
    const auto equals = variable.find('=');
    parameters.emplace_back(variable.substr(prefix.size(), equals - prefix.size()), variable.substr(equals + 1));
  }
  std::sort(parameters.begin(), parameters.end());
  return parameters;
}

}  // namespace

std::uint64_t physical_memory_bytes() {
  return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::uint64_t last_level_cache_bytes() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long bytes = sysconf(name);
    if (bytes > 0) return static_cast<std::uint64_t>(bytes);
  }
  return 32ull << 20;  // unknown: assume a common server L3
}

namespace {

// Name-value pairs travel between ranks as "name\tvalue\n" lines.
std::string join_facts(const std::vector<std::pair<std::string, std::string>>& facts) {
  std::string text;
  for (const auto& [name, value] : facts) text += name + "\t" + value + "\n";
  return text;
}

std::vector<std::pair<std::string, std::string>> split_facts(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> facts;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto tab = line.find('\t');
    if (tab != std::string::npos) facts.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return facts;
}

}  // namespace

SystemInfo collect_system_info(const Team& team, const std::vector<std::pair<std::string, std::string>>& module_facts) {
  SystemInfo info;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  const std::vector<std::string> hosts = team.gather(std::string(host, static_cast<std::size_t>(length)));
  const std::vector<std::string> cpus = team.gather(my_cpus());
  const std::vector<std::string> facts = team.gather(join_facts(module_facts));
  for (std::size_t r = 0; r < hosts.size(); ++r) info.ranks.push_back({hosts[r], cpus[r], split_facts(facts[r])});
  std::vector<std::string> distinct = hosts;
  std::sort(distinct.begin(), distinct.end());
  info.host_count = std::max<int>(1, static_cast<int>(std::unique(distinct.begin(), distinct.end()) - distinct.begin()));

  info.cpu_model = cpu_model();
  utsname system{};
  if (uname(&system) == 0) info.kernel = std::string(system.sysname) + " " + system.release + " " + system.machine;
  info.memory_bytes = physical_memory_bytes();
  info.last_level_cache_bytes = last_level_cache_bytes();
  info.numa_nodes = numa_node_count();
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  MPI_Get_library_version(library, &length);
  info.mpi_library = std::string(library, static_cast<std::size_t>(length));
  while (!info.mpi_library.empty() && (info.mpi_library.back() == '\n' || info.mpi_library.back() == '\0'))
    info.mpi_library.pop_back();
  info.mpi_parameters = mpi_parameters();
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  info.hdf5_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
  return info;
}

}  // namespace npgpu
