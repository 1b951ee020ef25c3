// The network interfaces read from a sysfs tree made here, shaped as the kernel lays it out.
#include <gtest/gtest.h>

#include <fstream>

#include "npgpu/network_interfaces.hpp"
#include "support/command.hpp"

namespace npgpu {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text << "\n";
}

// /sys/class/net/eth9 -> devices/pci0000:16/0000:16:02.0/0000:17:00.0/net/eth9, a virtual lo, and
// an InfiniBand port whose device is 0000:3b:00.0.
struct FakeSysfs {
  test::TempDir root;
  fs::path net = root.path() / "class/net";
  fs::path infiniband = root.path() / "class/infiniband";

  FakeSysfs() {
    const fs::path eth9 = root.path() / "devices/pci0000:16/0000:16:02.0/0000:17:00.0/net/eth9";
    write(eth9 / "type", "1");
    write(eth9 / "operstate", "up");
    write(eth9 / "speed", "100000");
    write(eth9 / "mtu", "9000");
    const fs::path lo = root.path() / "devices/virtual/net/lo";
    write(lo / "type", "772");
    write(lo / "operstate", "unknown");
    write(lo / "mtu", "65536");  // no speed: reading it fails with EINVAL on a real lo
    fs::create_directories(net);
    fs::create_directory_symlink(eth9, net / "eth9");
    fs::create_directory_symlink(lo, net / "lo");
    const fs::path hca = root.path() / "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0";
    write(infiniband / "mlx5_0/ports/1/state", "4: ACTIVE");
    write(infiniband / "mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)");
    write(infiniband / "mlx5_0/ports/1/link_layer", "InfiniBand");
    write(infiniband / "mlx5_0/ports/2/state", "1: DOWN");
    write(infiniband / "mlx5_0/ports/2/rate", "10 Gb/sec (4X SDR)");
    write(infiniband / "mlx5_0/ports/2/link_layer", "Ethernet");
    fs::create_directories(hca);
    fs::create_directory_symlink(hca, infiniband / "mlx5_0/device");
  }
};

TEST(NetworkInterfaces, ReadsEthernetLoopbackAndInfinibandPorts) {
  const FakeSysfs sysfs;
  const std::vector<NetworkInterface> found = network_interfaces(sysfs.net, sysfs.infiniband);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].name, "eth9");
  EXPECT_EQ(found[0].kind, "ethernet");
  EXPECT_EQ(found[0].state, "up");
  EXPECT_DOUBLE_EQ(found[0].gbit_per_s, 100);
  EXPECT_EQ(found[0].mtu, 9000);
  EXPECT_EQ(found[0].pci_bus_id, "0000:17:00.0") << "the device itself, not the bridge above it";
  EXPECT_EQ(found[1].name, "lo");
  EXPECT_EQ(found[1].kind, "loopback");
  EXPECT_DOUBLE_EQ(found[1].gbit_per_s, 0) << "no speed: unknown";
  EXPECT_EQ(found[1].pci_bus_id, "") << "virtual";
  EXPECT_EQ(found[2].name, "mlx5_0:1");
  EXPECT_EQ(found[2].kind, "infiniband");
  EXPECT_EQ(found[2].state, "ACTIVE");
  EXPECT_DOUBLE_EQ(found[2].gbit_per_s, 400);
  EXPECT_EQ(found[2].pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(found[3].kind, "RoCE");
  EXPECT_EQ(found[3].state, "DOWN");
}

TEST(NetworkInterfaces, NoFoldersNoInterfaces) {
  EXPECT_TRUE(network_interfaces("/nonexistent/net", "/nonexistent/infiniband").empty());
}

TEST(InfinibandRate, GigabitsFromTheKernelsText) {
  EXPECT_DOUBLE_EQ(infiniband_rate_gbit("200 Gb/sec (4X HDR)"), 200);
  EXPECT_DOUBLE_EQ(infiniband_rate_gbit("2.5 Gb/sec (1X SDR)"), 2.5);
  EXPECT_DOUBLE_EQ(infiniband_rate_gbit("fast"), 0);
}

TEST(PciAddressIn, TheLastAddressOfAPath) {
  EXPECT_EQ(pci_address_in("/sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0"), "0000:00:03.0");
  EXPECT_EQ(pci_address_in("/sys/devices/virtual/net/lo"), "");
}

}  // namespace
}  // namespace npgpu
