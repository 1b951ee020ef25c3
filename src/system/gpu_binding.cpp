#include "npgpu/gpu_binding.hpp"

#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "npgpu/errors.hpp"
#include "system/host_topology.hpp"

namespace npgpu {
namespace {

std::string first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::optional<int> whole_number(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1'000'000) return std::nullopt;
  return static_cast<int>(value);
}

}  // namespace

std::optional<int> node_local_rank_from(const std::function<const char*(const char*)>& lookup) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "PALS_LOCAL_RANKID", "SLURM_LOCALID"})
    if (const std::optional<int> rank = whole_number(lookup(name))) return rank;
  return std::nullopt;
}

int node_local_rank(const Team& team) {
  if (const std::optional<int> rank = node_local_rank_from(std::getenv)) return *rank;
  return rank_on_host(team);
}

int rank_on_host(const Team& team) {
  MPI_Comm local;
  MPI_Comm_split_type(team.comm(), MPI_COMM_TYPE_SHARED, team.rank(), MPI_INFO_NULL, &local);
  int rank = 0;
  MPI_Comm_rank(local, &rank);
  MPI_Comm_free(&local);
  return rank;
}

int choose_device(int local_rank, std::optional<int> requested, int device_count, bool in_turn) {
  if (device_count <= 0) throw UsageError("no CUDA GPU is visible on this node");
  const int device = requested.value_or(in_turn ? local_rank % device_count : local_rank);
  if (device < device_count) return device;
  const std::string count = std::to_string(device_count) + (device_count == 1 ? " GPU" : " GPUs");
  if (requested)
    throw UsageError("--device " + std::to_string(device) + ": this node has " + count + " (0 to " +
                     std::to_string(device_count - 1) + ")");
  throw UsageError("node-local rank " + std::to_string(local_rank) + " has no GPU of its own: this node has " + count +
                   "; start at most " + std::to_string(device_count) + " ranks per node, or choose one with --device");
}

namespace {

// sysfs names devices in lower case with a 4-digit domain; CUDA may print 8 digits, upper case.
std::string sysfs_name(const std::string& pci_bus_id) {
  std::string name = pci_bus_id;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.size() > 12 && name.find(':') == 8) name = name.substr(4);
  return name;
}

}  // namespace

std::string pci_upstream(const std::string& pci_bus_id, const std::filesystem::path& devices) {
  std::error_code error;
  const std::string name = sysfs_name(pci_bus_id);
  const std::filesystem::path real = std::filesystem::canonical(devices / name, error);
  if (error) return {};
  // /sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:1b:00.0: the folders from the root
  // complex down, the device itself last.
  std::string path;
  bool below_root = false;
  for (const std::filesystem::path& part : real) {
    const std::string folder = part.string();
    below_root = below_root || folder.rfind("pci", 0) == 0;
    if (!below_root || folder == name) continue;
    path += (path.empty() ? "" : " > ") + folder;
  }
  return path;
}

PciLink pci_link(const std::string& pci_bus_id, const std::filesystem::path& devices) {
  const std::filesystem::path device = devices / sysfs_name(pci_bus_id);
  PciLink link;
  std::sscanf(first_line(device / "current_link_speed").c_str(), "%lf", &link.gts);
  std::sscanf(first_line(device / "current_link_width").c_str(), "%d", &link.width);
  std::sscanf(first_line(device / "max_link_speed").c_str(), "%lf", &link.max_gts);
  std::sscanf(first_line(device / "max_link_width").c_str(), "%d", &link.max_width);
  return link;
}

std::string link_shortfall(const PciLink& link) {
  std::string shortfall;
  if (link.width > 0 && link.max_width > 0 && link.width < link.max_width)
    shortfall = "x" + std::to_string(link.width) + " of x" + std::to_string(link.max_width);
  const int generation = pcie_generation(link.gts), max_generation = pcie_generation(link.max_gts);
  if (generation > 0 && max_generation > 0 && generation < max_generation)
    shortfall += (shortfall.empty() ? "Gen" : ", Gen") + std::to_string(generation) + " of Gen" +
                 std::to_string(max_generation);
  return shortfall;
}

PciNeighbourhood pci_neighbourhood(const std::string& pci_bus_id) {
  const PciLocality locality = pci_locality(pci_bus_id);
  return {locality.numa_node, locality.local_cpus, pci_link(pci_bus_id), pci_upstream(pci_bus_id)};
}

int pcie_generation(double gts) {
  const double rates[] = {2.5, 5, 8, 16, 32, 64};
  for (int generation = 1; generation <= 6; ++generation)
    if (gts > 0 && std::abs(gts - rates[generation - 1]) < 0.01 * rates[generation - 1]) return generation;
  return 0;
}

LinkPeak pcie_peak(double gts, int width) {
  const int generation = pcie_generation(gts);
  if (generation == 0 || width <= 0) return {};
  // Gen1-2 send 8 bits as 10; Gen3-5 128 as 130; Gen6's FLITs carry 242 payload bytes in 256.
  const double efficiency = generation <= 2 ? 0.8 : generation <= 5 ? 128.0 / 130 : 242.0 / 256;
  const char* encoding = generation <= 2 ? "8b/10b" : generation <= 5 ? "128b/130b" : "FLIT 242/256";
  char how[160];
  std::snprintf(how, sizeof how, "PCIe Gen%d x%d: %g GT/s x %d lanes x %s / 8, one direction", generation, width, gts,
                width, encoding);
  return {gts * 1e9 * width * efficiency / 8, how};
}

std::vector<int> parse_cpu_list(const std::string& cpu_list) {
  std::vector<int> cpus;
  std::istringstream ranges(cpu_list);
  for (std::string range; std::getline(ranges, range, ',');) {
    int first = 0, last = 0;
    const int fields = std::sscanf(range.c_str(), "%d-%d", &first, &last);
    if (fields < 1) continue;
    if (fields == 1) last = first;
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

bool bind_to_cpus(const std::string& cpu_list) {
  const std::vector<int> cpus = parse_cpu_list(cpu_list);
  if (cpus.empty()) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus)
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

}  // namespace npgpu
