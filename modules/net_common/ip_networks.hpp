#pragma once
// Where a rank is on the network, and how it reaches a peer: its host's IPv4 networks, the address
// it finds the peer at, the interface traffic toward the peer leaves by. tcp connects by them; mpi
// and mpiRma name the network MPI crosses between hosts.
#include <sys/socket.h>

#include <string>
#include <vector>

namespace npgpu {

// This host's IPv4 networks as "address/prefix" words (interfaces that are up, loopback left out).
std::string local_networks();

// Where a rank is: its host name and local_networks().
struct Place {
  std::string host;
  std::string networks;
};
// Where a rank finds a peer, and how it was found (for the record).
struct Route {
  std::string address;  // numeric, or a host name for connect_to to resolve
  std::string how;
};
// Loopback on its own host; else the peer's address on a network both are on (the interface the
// peer is reached through without a router, whatever its name resolves to); else its host name.
Route route_to(const Place& mine, const Place& peer);
// This host's addresses on networks the peer has an address on: where traffic to it can leave.
std::vector<std::string> addresses_toward(const Place& mine, const Place& peer);

// An IPv4 or IPv6 address as numeric text ("127.0.0.1", "::1").
std::string numeric_address(const sockaddr& address);
// The network interface that owns a local address ("lo"), or "unknown".
std::string interface_of(const std::string& address);

}  // namespace npgpu
