#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "npgpu/errors.hpp"
#include "npgpu/gpu_binding.hpp"
#include "support/command.hpp"

namespace npgpu {
namespace {

std::function<const char*(const char*)> environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

TEST(NodeLocalRank, EachLauncherSaysItItsOwnWay) {
  EXPECT_EQ(node_local_rank_from(environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}})), 3);
  EXPECT_EQ(node_local_rank_from(environment({{"SLURM_LOCALID", "1"}})), 1);
  EXPECT_EQ(node_local_rank_from(environment({{"PALS_LOCAL_RANKID", "2"}})), 2);
  EXPECT_EQ(node_local_rank_from(environment({{"MPI_LOCALRANKID", "5"}})), 5);
  EXPECT_EQ(node_local_rank_from(environment({{"MV2_COMM_WORLD_LOCAL_RANK", "4"}})), 4);
  EXPECT_EQ(node_local_rank_from(environment({})), std::nullopt) << "then MPI_Comm_split_type decides";
}

TEST(NodeLocalRank, TheMpiLaunchersOwnVariableWinsOverSlurms) {
  // srun starting an Open MPI job sets both; the MPI library's own view is the one that counts.
  EXPECT_EQ(node_local_rank_from(environment({{"SLURM_LOCALID", "0"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}})), 1);
}

TEST(NodeLocalRank, IgnoresGarbage) {
  EXPECT_EQ(node_local_rank_from(environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "x1"}, {"SLURM_LOCALID", "2"}})), 2);
  EXPECT_EQ(node_local_rank_from(environment({{"SLURM_LOCALID", "-1"}})), std::nullopt);
}

TEST(ChooseDevice, LocalRankUnlessTold) {
  EXPECT_EQ(choose_device(1, std::nullopt, 2, false), 1);
  EXPECT_EQ(choose_device(1, 0, 2, false), 0);
}

TEST(ChooseDevice, UnderLoadRanksBeyondTheGpusTakeThemInTurn) {
  EXPECT_EQ(choose_device(2, std::nullopt, 2, true), 0);
  EXPECT_EQ(choose_device(3, std::nullopt, 2, true), 1);
  EXPECT_EQ(choose_device(3, std::nullopt, 4, true), 3);
  EXPECT_EQ(choose_device(3, 0, 2, true), 0);
}

std::string refusal(int local_rank, std::optional<int> requested, int count) {
  try {
    choose_device(local_rank, requested, count, false);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(ChooseDevice, RefusesWhatIsNotThere) {
  EXPECT_NE(refusal(0, 4, 2).find("--device 4: this node has 2 GPUs (0 to 1)"), std::string::npos);
  EXPECT_NE(refusal(2, std::nullopt, 2).find("node-local rank 2 has no GPU of its own"), std::string::npos);
  EXPECT_NE(refusal(0, std::nullopt, 0).find("no CUDA GPU"), std::string::npos);
}

TEST(PciLink, ReadsCurrentAndMaximumFromSysfs) {
  test::TempDir sysfs;
  const std::filesystem::path device = sysfs.path() / "0000:1b:00.0";
  std::filesystem::create_directories(device);
  std::ofstream(device / "current_link_speed") << "16.0 GT/s PCIe\n";
  std::ofstream(device / "current_link_width") << "8\n";
  std::ofstream(device / "max_link_speed") << "32.0 GT/s PCIe\n";
  std::ofstream(device / "max_link_width") << "16\n";
  const PciLink link = pci_link("00000000:1B:00.0", sysfs.path());
  EXPECT_DOUBLE_EQ(link.gts, 16.0);
  EXPECT_EQ(link.width, 8);
  EXPECT_DOUBLE_EQ(link.max_gts, 32.0);
  EXPECT_EQ(link.max_width, 16);
  EXPECT_EQ(pci_link("0000:99:00.0", sysfs.path()).width, 0) << "absent: unknown, not an error";
}

// sysfs links each device to its folder under the root complex, below every bridge on the way.
TEST(PciUpstream, TheBridgesBetweenTheRootComplexAndTheDevice) {
  test::TempDir sysfs;
  const std::filesystem::path tree = sysfs.path() / "devices/pci0000:17/0000:17:01.0/0000:18:00.0";
  for (const char* gpu : {"0000:1b:00.0", "0000:1c:00.0"}) std::filesystem::create_directories(tree / gpu);
  std::filesystem::create_directories(sysfs.path() / "bus");
  for (const char* gpu : {"0000:1b:00.0", "0000:1c:00.0"})
    std::filesystem::create_directory_symlink(tree / gpu, sysfs.path() / "bus" / gpu);
  EXPECT_EQ(pci_upstream("00000000:1B:00.0", sysfs.path() / "bus"), "pci0000:17 > 0000:17:01.0 > 0000:18:00.0");
  EXPECT_EQ(pci_upstream("0000:1c:00.0", sysfs.path() / "bus"), pci_upstream("0000:1b:00.0", sysfs.path() / "bus"))
      << "two GPUs behind one switch";
  EXPECT_EQ(pci_upstream("0000:99:00.0", sysfs.path() / "bus"), "") << "absent: unknown, not an error";
}

TEST(LinkShortfall, NamesWhatFallsShortOfTheMaximum) {
  EXPECT_EQ(link_shortfall({32, 16, 32, 16}), "") << "at its maximum";
  EXPECT_EQ(link_shortfall({32, 8, 32, 16}), "x8 of x16");
  EXPECT_EQ(link_shortfall({2.5, 16, 32, 16}), "Gen1 of Gen5") << "an idle GPU's link";
  EXPECT_EQ(link_shortfall({8, 4, 16, 16}), "x4 of x16, Gen3 of Gen4");
  EXPECT_EQ(link_shortfall({32, 16, 0, 0}), "") << "maximum unknown: nothing to call out";
  EXPECT_EQ(link_shortfall({0, 0, 32, 16}), "") << "current unknown: nothing to call out";
}

TEST(PciePeak, RateTimesLanesTimesEncoding) {
  EXPECT_EQ(pcie_generation(32.0), 5);
  EXPECT_EQ(pcie_generation(8.0), 3);
  EXPECT_EQ(pcie_generation(7.0), 0);
  EXPECT_NEAR(pcie_peak(32.0, 16).bytes_per_second, 32e9 * 16 * 128 / 130 / 8, 1);  // 63.0 GB/s
  EXPECT_NEAR(pcie_peak(5.0, 16).bytes_per_second, 8e9, 1);                         // Gen2: 8b/10b
  EXPECT_NE(pcie_peak(32.0, 16).how.find("Gen5 x16"), std::string::npos);
  EXPECT_EQ(pcie_peak(0, 16).bytes_per_second, 0) << "unknown link, no peak";
}

TEST(CpuList, ParsesRanges) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_TRUE(parse_cpu_list("").empty());
}

}  // namespace
}  // namespace npgpu
