#include "npgpu/network_interfaces.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>

#include "system/host_topology.hpp"

namespace npgpu {
namespace fs = std::filesystem;
namespace {

std::string first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

long number_in(const fs::path& path, long unknown) {
  long value = unknown;
  std::sscanf(first_line(path).c_str(), "%ld", &value);
  return value;
}

// ARPHRD_* of <linux/if_arp.h> that matter here.
std::string kind_of(long arp_type) {
  switch (arp_type) {
    case 1: return "ethernet";
    case 32: return "infiniband";  // IP over InfiniBand
    case 772: return "loopback";
    default: return "type " + std::to_string(arp_type);
  }
}

std::vector<fs::path> entries(const fs::path& folder) {
  std::vector<fs::path> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) found.push_back(entry.path());
  std::sort(found.begin(), found.end());
  return found;
}

// Where in the PCI tree a sysfs class entry's device sits, and that device's NUMA node.
void place(NetworkInterface& interface, const fs::path& class_entry) {
  std::error_code error;
  interface.pci_bus_id = pci_address_in(fs::canonical(class_entry, error));
  if (!interface.pci_bus_id.empty()) interface.numa_node = pci_locality(interface.pci_bus_id).numa_node;
}

NetworkInterface net_interface(const fs::path& entry) {
  NetworkInterface interface;
  interface.name = entry.filename().string();
  interface.kind = kind_of(number_in(entry / "type", -1));
  interface.state = first_line(entry / "operstate");
  // Mb/s; -1 or unreadable (EINVAL) without a carrier or on virtual devices.
  const long megabits = number_in(entry / "speed", -1);
  interface.gbit_per_s = megabits > 0 ? megabits / 1000.0 : 0;
  interface.mtu = static_cast<int>(number_in(entry / "mtu", 0));
  place(interface, entry);
  return interface;
}

NetworkInterface infiniband_port(const fs::path& device, const fs::path& port) {
  NetworkInterface interface;
  interface.name = device.filename().string() + ":" + port.filename().string();
  // A port's link layer is InfiniBand, or Ethernet for RoCE.
  interface.kind = first_line(port / "link_layer") == "Ethernet" ? "RoCE" : "infiniband";
  const std::string state = first_line(port / "state");  // "4: ACTIVE"
  const auto colon = state.find(": ");
  interface.state = colon == std::string::npos ? state : state.substr(colon + 2);
  interface.gbit_per_s = infiniband_rate_gbit(first_line(port / "rate"));
  place(interface, device / "device");
  return interface;
}

}  // namespace

double infiniband_rate_gbit(const std::string& rate) {
  double gbit = 0;
  return std::sscanf(rate.c_str(), "%lf Gb/sec", &gbit) == 1 && gbit > 0 ? gbit : 0;
}

std::string pci_address_in(const fs::path& device_path) {
  static const std::regex kAddress("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
  std::string found;
  for (const fs::path& part : device_path)
    if (std::regex_match(part.string(), kAddress)) found = part.string();
  return found;
}

std::vector<NetworkInterface> network_interfaces(const fs::path& net, const fs::path& infiniband) {
  std::vector<NetworkInterface> interfaces;
  for (const fs::path& entry : entries(net)) interfaces.push_back(net_interface(entry));
  for (const fs::path& device : entries(infiniband))
    for (const fs::path& port : entries(device / "ports")) interfaces.push_back(infiniband_port(device, port));
  return interfaces;
}

}  // namespace npgpu
