#pragma once
// Which GPU a rank takes, and what the machine says about that GPU's neighbourhood. No CUDA here:
// everything is environment variables, MPI, hwloc and sysfs, so it is tested on machines without GPUs.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "npgpu/module.hpp"
#include "npgpu/team.hpp"

namespace npgpu {

// The node-local rank as the launcher states it: Open MPI, MVAPICH, MPICH/Hydra, Cray PALS
// (PBS on Polaris-like machines), Slurm, in that order. `lookup` is getenv in production.
std::optional<int> node_local_rank_from(const std::function<const char*(const char*)>& lookup);

// This rank among the team's ranks on its host (MPI_Comm_split_type; collective on every rank).
int rank_on_host(const Team& team);

// From the environment, else rank_on_host (collective in that case on every rank).
int node_local_rank(const Team& team);

// --device when given, else the node-local rank; UsageError when that GPU does not exist. With
// `in_turn` (a run under load), node-local ranks beyond the node's GPUs take them in turn, so that
// a load can run on the victims' own GPUs.
int choose_device(int local_rank, std::optional<int> requested, int device_count, bool in_turn);

// A PCI device's link, current and maximum, from sysfs (hwloc reports only the current bandwidth,
// neither the lanes nor the maximum); zero where sysfs says nothing.
struct PciLink {
  double gts = 0;       // current speed, GT/s per lane
  int width = 0;        // current lanes
  double max_gts = 0;   // what the device and its slot can train to
  int max_width = 0;
};
PciLink pci_link(const std::string& pci_bus_id, const std::filesystem::path& devices = "/sys/bus/pci/devices");

// The PCIe path from the host to a device, from sysfs: the root complex and every bridge above the
// device ("pci0000:17 > 0000:17:00.0 > 0000:18:00.0"); devices whose paths share a bridge share
// that root port or switch, and its upstream link. "" where sysfs does not have the device.
std::string pci_upstream(const std::string& pci_bus_id, const std::filesystem::path& devices = "/sys/bus/pci/devices");

// "" when the link runs at its maximum (or either is unknown), else what falls short, such as
// "x8 of x16" or "Gen1 of Gen5" (GPUs lower their link speed when idle, never their width).
std::string link_shortfall(const PciLink& link);

// Where a PCI device ("0000:1b:00.0") sits: NUMA node and local cores from hwloc, its link and the
// bridges above it from sysfs.
struct PciNeighbourhood {
  int numa_node = -1;
  std::string local_cpus;   // "0-15,32-47"
  PciLink link;
  std::string upstream;     // pci_upstream()
};
PciNeighbourhood pci_neighbourhood(const std::string& pci_bus_id);

// PCIe generation from the lane rate (2.5 GT/s is Gen1 ... 64 GT/s is Gen6), 0 if unknown.
int pcie_generation(double gts);
// One direction's theoretical bytes/s: rate x lanes x encoding efficiency / 8 bits.
LinkPeak pcie_peak(double gts, int width);

// Keeps this thread on the given cores ("0-3,8"); false when the list is empty or refused.
bool bind_to_cpus(const std::string& cpu_list);
std::vector<int> parse_cpu_list(const std::string& cpu_list);

}  // namespace npgpu
