#pragma once
// What UCX chose for an endpoint, read from ucp_ep_print_info's text (UCX 1.13 has no query for
// it): the transport and device of each lane with its roles, and where each protocol starts. Pure
// functions of that text and of this host's interfaces, so they are tested on text UCX printed,
// and built where UCX is not.
#include <string>
#include <vector>

#include "npgpu/module.hpp"
#include "npgpu/network_interfaces.hpp"

namespace npgpu::ucx {

struct Lane {
  std::string transport;  // "posix", "cma", "tcp", "rc_mlx5"
  std::string device;     // "memory", "lo", "eth0", "mlx5_0:1"
  std::string roles;      // what UCX uses it for: "am am_bw#0", "rma_bw#0", "wireup"
};

struct EndpointConfig {
  std::vector<Lane> lanes;
  // "0..<egr/short>..92..<egr/bcopy>..8192..<rndv>..(inf)": the size where each tag protocol
  // starts (UCX's own notation); "" when the context has no tag feature.
  std::string tag_protocols;
  // The same for puts, one entry per RMA lane: "posix/memory 0..<short>..2048..<bcopy>..(inf)".
  std::vector<std::string> put_protocols;
};

EndpointConfig parse_endpoint_config(const std::string& text);

// "posix/memory (am am_bw#0), cma/memory (rma_bw#0)"; "unknown" without lanes.
std::string describe_lanes(const std::vector<Lane>& lanes);

// "posix/memory 0..<short>..2048..<bcopy>..(inf), ..."; "unknown" without RMA lanes.
std::string describe_put_protocols(const EndpointConfig& config);

// The link an endpoint crosses: none on one host; between hosts, the one network device its lanes
// use, rated from sysfs; unknown, with why, for several devices (UCX stripes over them) or none.
LinkPeak endpoint_link_peak(const EndpointConfig& config, bool same_host, const std::vector<NetworkInterface>& interfaces);

}  // namespace npgpu::ucx
