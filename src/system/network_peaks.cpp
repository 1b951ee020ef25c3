#include "npgpu/network_peaks.hpp"

#include <algorithm>
#include <cstdio>

namespace npgpu {

LinkPeak same_host_peak(const std::string& through) {
  return {0, "none: both ranks are on one host, where " + through + " moves the bytes through memory, over no network link"};
}

LinkPeak interface_peak(const std::vector<NetworkInterface>& interfaces, const std::string& name) {
  const auto found = std::find_if(interfaces.begin(), interfaces.end(), [&](const NetworkInterface& i) { return i.name == name; });
  if (found == interfaces.end()) return {0, "unknown: interface " + name + " is not in /sys/class/net"};
  if (found->gbit_per_s <= 0)
    return {0, "unknown: the kernel reports no speed for " + name + " (" + found->kind + ", " + found->state +
                   "; virtual devices and links without carrier have none)"};
  if (found->pci_bus_id.empty() && found->kind != "infiniband" && found->kind != "RoCE")
    return {0, "unknown: " + name + " is a virtual device (no PCI device behind it), whose speed of " +
                   std::to_string(static_cast<long>(found->gbit_per_s * 1000)) +
                   " Mb/s is nominal: what it is bridged or limited to decides (npgpu report --link names the link)"};
  char how[200];
  std::snprintf(how, sizeof how, "%s: %g Mb/s (sysfs speed) / 8, one direction (framing and headers come off that)",
                name.c_str(), found->gbit_per_s * 1000);
  return {found->gbit_per_s * 1e9 / 8, how};
}

LinkPeak mpi_network_peak(const std::vector<NetworkInterface>& interfaces, const std::vector<std::string>& toward_peer) {
  std::string fabric;
  for (const NetworkInterface& i : interfaces)
    if ((i.kind == "infiniband" || i.kind == "RoCE") && i.state == "ACTIVE") fabric += (fabric.empty() ? "" : ", ") + i.name;
  std::string ip;
  for (const std::string& name : toward_peer) ip += (ip.empty() ? "" : ", ") + name;
  if (!fabric.empty())
    return {0, "unknown: MPI may carry this over " + fabric + " or over IP" + (ip.empty() ? "" : " (" + ip + ")") +
                   ", which npgpu cannot tell (npgpu report --link names the link)"};
  if (toward_peer.empty()) return {0, "unknown: no interface of this host is on a network of the peer's"};
  if (toward_peer.size() > 1) return {0, "unknown: Open MPI's TCP transport may stripe messages over " + ip};
  LinkPeak peak = interface_peak(interfaces, toward_peer.front());
  if (peak.bytes_per_second > 0) peak.how = "MPI over IP, " + peak.how;
  return peak;
}

}  // namespace npgpu
