#include "system/system_json.hpp"

#include "npgpu/version.hpp"

namespace npgpu {

// Field names are the JSON keys (docs/info-json.md documents each).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LinkPeak, bytes_per_second, how)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NumaNode, index, memory_bytes, cpus)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HostTopology, cpu_model, sockets, cores, hardware_threads, numa_nodes,
                                   last_level_cache_bytes, hwloc_version)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NetworkInterface, name, kind, state, gbit_per_s, mtu, pci_bus_id, numa_node)

// The link as sysfs gives it, and what follows from it: generations and whether it falls short.
void to_json(nlohmann::json& json, const PciLink& link) {
  json = {{"gts", link.gts},
          {"width", link.width},
          {"max_gts", link.max_gts},
          {"max_width", link.max_width},
          {"generation", pcie_generation(link.gts)},
          {"max_generation", pcie_generation(link.max_gts)},
          {"below_maximum", link_shortfall(link)}};
}

void from_json(const nlohmann::json& json, PciLink& link) {
  json.at("gts").get_to(link.gts);
  json.at("width").get_to(link.width);
  json.at("max_gts").get_to(link.max_gts);
  json.at("max_width").get_to(link.max_width);
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GpuFacts, index, name, uuid, pci_bus_id, compute_capability, numa_node, local_cpus,
                                   pcie, pcie_peak, memory_bytes, memory_bandwidth, nvlinks_active, nvlink_peak)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GpuPairFacts, from, to, peer_access, path, peak)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GpuInventory, unavailable, cuda_driver, cuda_runtime, gpus, pairs)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HostFacts, name, kernel, memory_bytes, topology, network, gpus)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RankPlacement, host, cpus, module_facts, node_local_rank)

namespace {

nlohmann::json rank_json(const SystemInfo& info, int rank) {
  const RankPlacement& placement = info.ranks[static_cast<std::size_t>(rank)];
  const GpuInventory& gpus = host_of(info, rank).gpus;
  const int gpu = default_gpu(placement.node_local_rank, static_cast<int>(gpus.gpus.size()));
  nlohmann::json json = {{"rank", rank},
                         {"host", placement.host},
                         {"cpus", placement.cpus},
                         {"node_local_rank", placement.node_local_rank},
                         {"gpu", nullptr},
                         {"module_facts", nlohmann::json::object()}};
  if (gpu >= 0) {
    const GpuFacts& facts = gpus.gpus[static_cast<std::size_t>(gpu)];
    json["gpu"] = {{"index", facts.index}, {"pci_bus_id", facts.pci_bus_id}, {"local_cpus", facts.local_cpus}};
  }
  for (const auto& [name, value] : placement.module_facts) json["module_facts"][name] = value;
  return json;
}

}  // namespace

nlohmann::json system_json(const SystemInfo& info) {
  nlohmann::json json = {{"schema", kInfoSchema},
                         {"npgpu_version", kVersion},
                         {"hdf5_version", info.hdf5_version},
                         {"mpi", {{"library", info.mpi_library},
                                  {"cuda_aware", info.mpi_cuda_aware},
                                  {"parameters", nlohmann::json::object()}}},
                         {"hosts", info.hosts},
                         {"ranks", nlohmann::json::array()}};
  for (const auto& [name, value] : info.mpi_parameters) json["mpi"]["parameters"][name] = value;
  for (std::size_t rank = 0; rank < info.ranks.size(); ++rank) json["ranks"].push_back(rank_json(info, static_cast<int>(rank)));
  return json;
}

nlohmann::json rank_report(const RankPlacement& placement, const HostFacts* host) {
  return {{"placement", placement}, {"host", host != nullptr ? nlohmann::json(*host) : nlohmann::json()}};
}

void read_rank_report(const nlohmann::json& report, RankPlacement& placement, std::optional<HostFacts>& host) {
  report.at("placement").get_to(placement);
  if (!report.at("host").is_null()) host = report.at("host").get<HostFacts>();
}

}  // namespace npgpu
