#pragma once
// The network interfaces of this host, Ethernet and InfiniBand, as sysfs describes them: the
// kernel is the only source of link speed and state (hwloc lists the devices, not their links).
#include <filesystem>
#include <string>
#include <vector>

namespace npgpu {

struct NetworkInterface {
  std::string name;        // "eth0"; an InfiniBand port is "mlx5_0:1"
  std::string kind;        // ethernet, infiniband, RoCE, loopback, or the ARPHRD type number
  std::string state;       // operstate (up, down, unknown) or the port's state (ACTIVE, DOWN, ...)
  double gbit_per_s = 0;   // 0: unknown (no carrier, a virtual device)
  int mtu = 0;             // 0: unknown (InfiniBand ports)
  std::string pci_bus_id;  // "" for virtual devices
  int numa_node = -1;      // of its PCI device, from hwloc
};

// Every entry of `net` (/sys/class/net), then every port of every device in `infiniband`.
std::vector<NetworkInterface> network_interfaces(const std::filesystem::path& net = "/sys/class/net",
                                                 const std::filesystem::path& infiniband = "/sys/class/infiniband");

// "200 Gb/sec (4X HDR)" -> 200; 0 when unreadable.
double infiniband_rate_gbit(const std::string& rate);
// The last "0000:17:00.0" in a sysfs device path, "" if none (a virtual device).
std::string pci_address_in(const std::filesystem::path& device_path);

}  // namespace npgpu
