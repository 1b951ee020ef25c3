// npgpu info's GPU rows on a GPU machine, against nvidia-smi, sysfs and CUDA asked directly.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gpu_support.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

nlohmann::json info_json(std::vector<std::string> argv) {
  argv.insert(argv.end(), {"info", "--json"});
  const CommandResult result = run_command(argv);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

// "00000000:1B:00.0" and "0000:1b:00.0" are the same device.
std::string bus_id_key(std::string id) {
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return id.size() > 12 && id.find(':') == 8 ? id.substr(4) : id;
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, ',');) {
    field.erase(0, field.find_first_not_of(' '));
    fields.push_back(field);
  }
  return fields;
}

// One row per GPU from nvidia-smi: name, uuid, pci bus id, memory MiB, max link width. Empty
// when nvidia-smi is not there (the CUDA checks below still run).
std::vector<std::vector<std::string>> nvidia_smi_rows() {
  try {
    const CommandResult result = run_command({"nvidia-smi", "--query-gpu=name,uuid,pci.bus_id,memory.total,pcie.link.width.max",
                                              "--format=csv,noheader,nounits"});
    std::vector<std::vector<std::string>> rows;
    if (result.exit_code == 0)
      for (const std::string& line : lines_of(result.out)) rows.push_back(csv_fields(line));
    return rows;
  } catch (const std::exception&) {
    return {};
  }
}

int sysfs_numa_node(const std::string& bus_id) {
  std::ifstream in("/sys/bus/pci/devices/" + bus_id_key(bus_id) + "/numa_node");
  int node = -1;
  in >> node;
  return node;
}

TEST(InfoOnGpus, GpuRowsAgreeWithNvidiaSmiSysfsAndCuda) {
  if (const std::string why = missing_gpus(1); !why.empty()) GTEST_SKIP() << why;
  const nlohmann::json host = info_json({NPGPU_BINARY}).at("hosts")[0];
  const nlohmann::json& gpus = host.at("gpus");
  EXPECT_EQ(gpus.at("unavailable"), "");
  EXPECT_NE(gpus.at("cuda_driver"), "none");
  ASSERT_EQ(gpus.at("gpus").size(), static_cast<std::size_t>(cuda_device_count()));
  const auto smi = nvidia_smi_rows();
  if (smi.empty()) std::cout << "nvidia-smi not found: checking against CUDA and sysfs only\n";
  for (std::size_t i = 0; i < gpus.at("gpus").size(); ++i) {
    const nlohmann::json& gpu = gpus.at("gpus")[i];
    const std::string bus_id = gpu.at("pci_bus_id");
    cudaDeviceProp properties{};
    ASSERT_EQ(cudaGetDeviceProperties(&properties, static_cast<int>(i)), cudaSuccess);
    EXPECT_EQ(gpu.at("name"), std::string(properties.name));
    EXPECT_EQ(gpu.at("memory_bytes"), properties.totalGlobalMem);
    EXPECT_GT(gpu.at("memory_bandwidth").at("bytes_per_second"), 1e11) << "an HBM or GDDR part moves over 100 GB/s";
    EXPECT_GT(gpu.at("pcie").at("max_width"), 0) << bus_id;
    EXPECT_GE(gpu.at("pcie").at("max_generation"), 3) << bus_id;
    if (const int node = sysfs_numa_node(bus_id); node >= 0) {
      EXPECT_EQ(gpu.at("numa_node"), node) << bus_id;
    }
    EXPECT_FALSE(gpu.at("local_cpus").get<std::string>().empty()) << bus_id;
    if (gpu.at("nvlinks_active") > 0) {
      EXPECT_NE(gpu.at("nvlink_peak").at("how").get<std::string>().find("NVLink"), std::string::npos);
    }
    if (i >= smi.size()) continue;
    const std::vector<std::string>& row = smi[i];
    ASSERT_EQ(row.size(), 5u);
    EXPECT_EQ(gpu.at("name"), row[0]);
    EXPECT_EQ(gpu.at("uuid"), row[1]);
    EXPECT_EQ(bus_id_key(bus_id), bus_id_key(row[2]));
    EXPECT_NEAR(gpu.at("memory_bytes").get<double>() / (1 << 20), std::stod(row[3]), 0.02 * std::stod(row[3]));
    EXPECT_EQ(gpu.at("pcie").at("max_width"), std::stoi(row[4])) << bus_id;
  }
  const std::size_t n = gpus.at("gpus").size();
  ASSERT_EQ(gpus.at("pairs").size(), n * (n - 1));
  for (const nlohmann::json& pair : gpus.at("pairs")) {
    int can = 0;
    ASSERT_EQ(cudaDeviceCanAccessPeer(&can, pair.at("from").get<int>(), pair.at("to").get<int>()), cudaSuccess);
    EXPECT_EQ(pair.at("peer_access"), can != 0) << pair.dump();
    EXPECT_FALSE(pair.at("path").get<std::string>().empty());
  }
}

TEST(InfoOnGpus, EachRankOfANodeTakesItsOwnGpu) {
  if (const std::string why = missing_gpus(2); !why.empty()) GTEST_SKIP() << why;
  const nlohmann::json info = info_json(mpirun_npgpu(2));
  ASSERT_EQ(info.at("ranks").size(), 2u);
  const nlohmann::json& gpus = info.at("hosts")[0].at("gpus").at("gpus");
  for (int rank = 0; rank < 2; ++rank) {
    const nlohmann::json& gpu = info.at("ranks")[static_cast<std::size_t>(rank)].at("gpu");
    ASSERT_FALSE(gpu.is_null()) << "rank " << rank;
    EXPECT_EQ(gpu.at("index"), rank);
    EXPECT_EQ(gpu.at("pci_bus_id"), gpus[static_cast<std::size_t>(rank)].at("pci_bus_id"));
    EXPECT_EQ(gpu.at("local_cpus"), gpus[static_cast<std::size_t>(rank)].at("local_cpus"));
  }
}

TEST(InfoOnGpus, TextNamesEveryGpu) {
  if (const std::string why = missing_gpus(1); !why.empty()) GTEST_SKIP() << why;
  const CommandResult result = run_command({NPGPU_BINARY, "info"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::cout << result.out;  // the note on the GPU machine shows it
  for (int index = 0; index < cuda_device_count(); ++index) {
    cudaDeviceProp properties{};
    ASSERT_EQ(cudaGetDeviceProperties(&properties, index), cudaSuccess);
    EXPECT_NE(result.out.find("GPU " + std::to_string(index) + "  "), std::string::npos) << result.out;
    EXPECT_NE(result.out.find(properties.name), std::string::npos) << result.out;
  }
}

}  // namespace
}  // namespace npgpu::test
