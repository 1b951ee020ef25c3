#pragma once
// The virtual cluster a multi-host test runs in (tests/multihost/virtual_cluster.sh; VC_DIR names
// it): its helper scripts and its table of hosts.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace npgpu::test {

struct Host {
  std::string name;
  std::string address;
  double bytes_per_second;           // from the host
  double incoming_bytes_per_second;  // to it
  int on_switch;                     // 1, or 2 behind the trunk
};

inline std::filesystem::path cluster_dir() {
  const char* dir = std::getenv("VC_DIR");
  if (dir == nullptr) throw std::runtime_error("VC_DIR is not set: run under tests/multihost/virtual_cluster.sh run");
  return dir;
}

// VC_DIR/hosts: name, address, Mbit/s out and in, switch; in host order.
inline std::vector<Host> cluster_hosts() {
  std::ifstream table(cluster_dir() / "hosts");
  std::vector<Host> hosts;
  Host host;
  double out = 0, in = 0;
  while (table >> host.name >> host.address >> out >> in >> host.on_switch) {
    host.bytes_per_second = out * 1e6 / 8;
    host.incoming_bytes_per_second = in * 1e6 / 8;
    hosts.push_back(host);
  }
  return hosts;
}

inline std::vector<std::string> host_names() {
  std::vector<std::string> names;
  for (const Host& host : cluster_hosts()) names.push_back(host.name);
  return names;
}

}  // namespace npgpu::test
