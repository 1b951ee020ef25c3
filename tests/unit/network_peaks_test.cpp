// The network peak of a host-memory run, from made-up interfaces: known where the kernel gives a
// speed and only one way reaches the peer, unknown with why otherwise.
#include <gtest/gtest.h>

#include "npgpu/network_peaks.hpp"

namespace npgpu {
namespace {

const std::vector<NetworkInterface> kHost{
    {"lo", "loopback", "unknown", 0, 65536, "", -1},
    {"eth0", "ethernet", "up", 25, 1500, "0000:17:00.0", 0},
    {"eth1", "ethernet", "up", 100, 9000, "0000:18:00.0", 0},
    {"veth3", "ethernet", "up", 0, 1500, "", -1},
    {"veth4", "ethernet", "up", 10, 9000, "", -1},
};

bool says(const LinkPeak& peak, const std::string& part) { return peak.how.find(part) != std::string::npos; }

TEST(InterfacePeak, TheKernelsSpeedOverEight) {
  const LinkPeak peak = interface_peak(kHost, "eth0");
  EXPECT_DOUBLE_EQ(peak.bytes_per_second, 3.125e9) << "25000 Mb/s / 8";
  EXPECT_TRUE(says(peak, "eth0: 25000 Mb/s (sysfs speed) / 8, one direction")) << peak.how;
}

TEST(InterfacePeak, UnknownWithWhyWhereTheKernelGivesNoSpeed) {
  for (const char* name : {"lo", "veth3"}) {
    const LinkPeak peak = interface_peak(kHost, name);
    EXPECT_EQ(peak.bytes_per_second, 0) << name;
    EXPECT_TRUE(says(peak, "unknown: the kernel reports no speed for " + std::string(name))) << peak.how;
  }
  EXPECT_TRUE(says(interface_peak(kHost, "ib7"), "unknown: interface ib7 is not in /sys/class/net"));
}

// A veth pair says 10000 Mb/s whatever limits it (the virtual cluster's links run at 400 Mbit/s).
TEST(InterfacePeak, UnknownOnAVirtualDeviceWhoseSpeedIsNominal) {
  const LinkPeak peak = interface_peak(kHost, "veth4");
  EXPECT_EQ(peak.bytes_per_second, 0);
  EXPECT_TRUE(says(peak, "unknown: veth4 is a virtual device (no PCI device behind it), whose speed of 10000 Mb/s is "
                         "nominal")) << peak.how;
}

TEST(SameHostPeak, NoNetworkLinkToRate) {
  const LinkPeak peak = same_host_peak("the kernel's loopback");
  EXPECT_EQ(peak.bytes_per_second, 0);
  EXPECT_TRUE(says(peak, "none: both ranks are on one host")) << peak.how;
}

TEST(MpiNetworkPeak, TheOneInterfaceThatReachesThePeer) {
  const LinkPeak peak = mpi_network_peak(kHost, {"eth1"});
  EXPECT_DOUBLE_EQ(peak.bytes_per_second, 12.5e9);
  EXPECT_TRUE(says(peak, "MPI over IP, eth1: 100000 Mb/s")) << peak.how;
}

TEST(MpiNetworkPeak, UnknownWhenMpiHasAnotherWayOrSeveral) {
  std::vector<NetworkInterface> with_infiniband = kHost;
  with_infiniband.push_back({"mlx5_0:1", "infiniband", "ACTIVE", 400, 0, "0000:3b:00.0", 0});
  const LinkPeak fabric = mpi_network_peak(with_infiniband, {"eth1"});
  EXPECT_EQ(fabric.bytes_per_second, 0);
  EXPECT_TRUE(says(fabric, "MPI may carry this over mlx5_0:1 or over IP (eth1)")) << fabric.how;
  with_infiniband.back().state = "DOWN";
  EXPECT_GT(mpi_network_peak(with_infiniband, {"eth1"}).bytes_per_second, 0) << "a port that is down carries nothing";
  EXPECT_TRUE(says(mpi_network_peak(kHost, {"eth0", "eth1"}), "may stripe messages over eth0, eth1"));
  EXPECT_TRUE(says(mpi_network_peak(kHost, {}), "no interface of this host is on a network of the peer's"));
}

}  // namespace
}  // namespace npgpu
