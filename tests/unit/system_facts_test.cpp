// System facts: what travels between ranks, the JSON's shape, the table's call-outs.
#include <gtest/gtest.h>

#include "system/info_text.hpp"
#include "system/system_json.hpp"
#include "system/sysinfo.hpp"

namespace npgpu {
namespace {

// One host with a GPU whose link trained at half its width, and two ranks on it.
SystemInfo one_host_two_ranks() {
  HostFacts host;
  host.name = "node7";
  host.topology.cpu_model = "Test CPU";
  host.topology.sockets = 2;
  host.topology.numa_nodes = {{0, 64ull << 30, "0-15"}, {1, 64ull << 30, "16-31"}};
  NetworkInterface ib0;
  ib0.name = "ib0";
  ib0.kind = "infiniband";
  ib0.gbit_per_s = 200;
  host.network = {ib0};
  GpuFacts gpu;
  gpu.index = 0;
  gpu.name = "Test GPU";
  gpu.pci_bus_id = "0000:1b:00.0";
  gpu.local_cpus = "0-15";
  gpu.pcie = {32, 8, 32, 16};
  host.gpus.gpus = {gpu};
  SystemInfo info;
  info.hosts = {host};
  info.ranks = {{"node7", "0-15", {}, 0}, {"node7", "16-31", {}, 1}};
  return info;
}

// A rank's environment under `mpirun --mca btl tcp,self` with OMPI_MCA_pml=ob1 exported, as
// Open MPI 4.1.4 sets it (ids and URIs shortened).
TEST(UserMcaParameters, KeepsWhatTheUserSetNotMpirunsWiring) {
  const std::vector<std::string> environment{
      "OMPI_MCA_btl=tcp,self", "OMPI_MCA_pml=ob1", "OMPI_MCA_ess=^singleton", "OMPI_MCA_ess_base_jobid=262995969",
      "OMPI_MCA_ess_base_vpid=1", "OMPI_MCA_initial_wdir=/work", "OMPI_MCA_mpi_oversubscribe=0",
      "OMPI_MCA_orte_hnp_uri=262995968.0;tcp://192.0.2.2:55567", "OMPI_MCA_orte_ess_num_procs=2",
      "OMPI_MCA_pmix=^s1,s2,cray,isolated", "OMPI_MCA_shmem_RUNTIME_QUERY_hint=mmap", "PATH=/usr/bin", "OMPI_MCA_broken"};
  const std::vector<std::pair<std::string, std::string>> expected{{"btl", "tcp,self"}, {"pml", "ob1"}};
  EXPECT_EQ(user_mca_parameters(environment), expected);
  const auto oversubscribed = user_mca_parameters({"OMPI_MCA_mpi_oversubscribe=1"});
  EXPECT_EQ(oversubscribed.size(), 1u) << "ranks that may share cores change the timings";
}

TEST(DefaultGpu, TheNodeLocalRanksWhileThereIsOne) {
  EXPECT_EQ(default_gpu(0, 2), 0);
  EXPECT_EQ(default_gpu(1, 2), 1);
  EXPECT_EQ(default_gpu(2, 2), -1);
  EXPECT_EQ(default_gpu(0, 0), -1);
}

TEST(RankReport, CarriesPlacementAndHostUnchanged) {
  const SystemInfo info = one_host_two_ranks();
  RankPlacement placement;
  std::optional<HostFacts> host;
  read_rank_report(nlohmann::json::parse(rank_report(info.ranks[1], &info.hosts[0]).dump()), placement, host);
  EXPECT_EQ(placement.cpus, "16-31");
  EXPECT_EQ(placement.node_local_rank, 1);
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(host->topology.numa_nodes[1].cpus, "16-31");
  EXPECT_EQ(host->network[0].gbit_per_s, 200);
  EXPECT_EQ(host->gpus.gpus[0].pcie.max_width, 16);

  std::optional<HostFacts> none;
  read_rank_report(rank_report(info.ranks[0], nullptr), placement, none);
  EXPECT_FALSE(none.has_value()) << "only a host's first rank reports the host";
}

TEST(SystemJson, MapsRanksToTheirGpusAndCallsOutTheLink) {
  const nlohmann::json json = system_json(one_host_two_ranks());
  EXPECT_EQ(json.at("schema"), kInfoSchema);
  const nlohmann::json& pcie = json.at("hosts")[0].at("gpus").at("gpus")[0].at("pcie");
  EXPECT_EQ(pcie.at("generation"), 5);
  EXPECT_EQ(pcie.at("below_maximum"), "x8 of x16");
  EXPECT_EQ(json.at("ranks")[0].at("gpu").at("pci_bus_id"), "0000:1b:00.0");
  EXPECT_TRUE(json.at("ranks")[1].at("gpu").is_null()) << "one GPU, so node-local rank 1 has none";
}

TEST(InfoText, ShowsTheHostTheLinkShortfallAndTheRankMap) {
  const std::string text = info_text(one_host_two_ranks());
  EXPECT_NE(text.find("host node7"), std::string::npos) << text;
  EXPECT_NE(text.find("2 sockets"), std::string::npos) << text;
  EXPECT_NE(text.find("BELOW ITS MAXIMUM (x8 of x16)"), std::string::npos) << text;
  EXPECT_EQ(text.find("idle GPU"), std::string::npos) << "a narrow link is no idle state: " << text;
  EXPECT_NE(text.find("ib0"), std::string::npos) << text;
  EXPECT_NE(text.find("200 Gb/s"), std::string::npos) << text;
  EXPECT_NE(text.find("0 (0000:1b:00.0)"), std::string::npos) << "rank 0 takes GPU 0: " << text;
}

}  // namespace
}  // namespace npgpu
