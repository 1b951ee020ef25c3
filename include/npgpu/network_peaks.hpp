#pragma once
// The theoretical peak of the network between two ranks of a host-memory module (tcp, mpi),
// where the host can know it: from the interfaces sysfs describes and the ones that reach the
// peer. Pure functions, tested on made-up interfaces.
#include <string>
#include <vector>

#include "npgpu/module.hpp"
#include "npgpu/network_interfaces.hpp"

namespace npgpu {

// Ranks on one host move bytes through memory (`through` says how): no network link to rate.
LinkPeak same_host_peak(const std::string& through);

// The speed the kernel reports for interface `name` / 8, one direction; unknown (0), with why,
// where it reports none (loopback, veth, no carrier) or the interface is not listed.
LinkPeak interface_peak(const std::vector<NetworkInterface>& interfaces, const std::string& name);

// MPI between hosts, given this host's interfaces on a network the peer is also on: that one's
// peak when it is the only way MPI can go; unknown, with why, when an active InfiniBand or RoCE
// port lets MPI bypass IP, or when several interfaces (which Open MPI's TCP transport stripes
// over) or none reach the peer.
LinkPeak mpi_network_peak(const std::vector<NetworkInterface>& interfaces, const std::vector<std::string>& toward_peer);

}  // namespace npgpu
