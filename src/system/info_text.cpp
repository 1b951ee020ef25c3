#include "system/info_text.hpp"

#include <cstdio>
#include <utility>

#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

// One row: a label in the first column, text after it; continuation rows leave the label blank.
std::string row(const std::string& label, const std::string& text) {
  char start[32];
  std::snprintf(start, sizeof start, "  %-11s ", label.c_str());
  return start + text + "\n";
}

std::string gbit(double gbit_per_s) {
  if (gbit_per_s <= 0) return "speed unknown";
  char text[32];
  std::snprintf(text, sizeof text, "%g Gb/s", gbit_per_s);
  return text;
}

std::string rate(const LinkPeak& peak) {
  if (peak.bytes_per_second <= 0) return peak.how.empty() ? "unknown" : peak.how;
  return format_throughput(peak.bytes_per_second, Units::decimal) + " (" + peak.how + ")";
}

std::string plural(int count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string pcie_text(const PciLink& link) {
  const auto gen_width = [](double gts, int width) {
    const int generation = pcie_generation(gts);
    return (generation > 0 ? "Gen" + std::to_string(generation) : std::string("Gen?")) + " x" +
           (width > 0 ? std::to_string(width) : "?");
  };
  if (link.width == 0 && link.max_width == 0) return "PCIe link unknown (sysfs has no link for it)";
  std::string text = "PCIe " + gen_width(link.gts, link.width) + " now, " + gen_width(link.max_gts, link.max_width) +
                     " at most";
  if (const std::string shortfall = link_shortfall(link); !shortfall.empty())
    text += ": BELOW ITS MAXIMUM (" + shortfall + ")" +
            (link.width >= link.max_width ? "; an idle GPU lowers its link speed, so check it under load" : "");
  return text;
}

std::string host_text(const HostFacts& host) {
  const HostTopology& t = host.topology;
  std::string text = "host " + host.name + " (" + host.kernel + ")\n";
  text += row("CPU", t.cpu_model + ": " + plural(t.sockets, "socket", "sockets") + ", " +
                         plural(t.cores, "core", "cores") + ", " +
                         plural(t.hardware_threads, "hardware thread", "hardware threads") + ", last-level cache " +
                         (t.last_level_cache_bytes > 0 ? format_capacity(t.last_level_cache_bytes) : "unknown"));
  text += row("memory", format_capacity(host.memory_bytes) + " (the kernel's MemTotal), " +
                            plural(static_cast<int>(t.numa_nodes.size()), "NUMA node", "NUMA nodes"));
  for (const NumaNode& node : t.numa_nodes)
    text += row("NUMA " + std::to_string(node.index), format_capacity(node.memory_bytes) + ", cores " + node.cpus);
  std::string label = "network";
  for (const NetworkInterface& n : host.network) {
    char line[256];
    std::snprintf(line, sizeof line, "%-12s %-10s %-8s %-14s", n.name.c_str(), n.kind.c_str(), n.state.c_str(),
                  gbit(n.gbit_per_s).c_str());
    text += row(std::exchange(label, ""), line + (n.mtu > 0 ? " mtu " + std::to_string(n.mtu) : "") +
                                              (n.pci_bus_id.empty() ? " virtual" : " PCI " + n.pci_bus_id) +
                                              (n.numa_node >= 0 ? ", NUMA node " + std::to_string(n.numa_node) : ""));
  }
  const GpuInventory& gpus = host.gpus;
  const std::string versions = gpus.cuda_runtime.empty() ? ""
                                                        : "driver " + gpus.cuda_driver + ", runtime " + gpus.cuda_runtime;
  text += row("CUDA", versions + (gpus.unavailable.empty() || versions.empty() ? "" : ": ") + gpus.unavailable);
  for (const GpuFacts& gpu : gpus.gpus) {
    text += row("GPU " + std::to_string(gpu.index), gpu.name + " (compute " + gpu.compute_capability + "), " + gpu.uuid);
    text += row("", "PCI " + gpu.pci_bus_id + ", NUMA node " + std::to_string(gpu.numa_node) + ", cores " +
                        (gpu.local_cpus.empty() ? "unknown" : gpu.local_cpus));
    text += row("", pcie_text(gpu.pcie) + "; " + rate(gpu.pcie_peak));
    text += row("", "memory " + format_capacity(gpu.memory_bytes) + ", " + rate(gpu.memory_bandwidth));
    text += row("", "NVLink: " + rate(gpu.nvlink_peak));
  }
  label = "GPU pairs";
  for (const GpuPairFacts& pair : gpus.pairs)
    text += row(std::exchange(label, ""), std::to_string(pair.from) + " -> " + std::to_string(pair.to) + ": " + pair.path);
  return text;
}

std::string ranks_text(const SystemInfo& info) {
  std::string text = "ranks (GPU: the node-local rank's, as the GPU modules take it unless --device)\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-5s %-20s %-6s %-18s %-14s %s\n", "rank", "host", "local", "GPU", "cores",
                "GPU's cores");
  text += line;
  for (std::size_t r = 0; r < info.ranks.size(); ++r) {
    const RankPlacement& rank = info.ranks[r];
    const GpuInventory& gpus = host_of(info, static_cast<int>(r)).gpus;
    const int gpu = default_gpu(rank.node_local_rank, static_cast<int>(gpus.gpus.size()));
    const GpuFacts* facts = gpu >= 0 ? &gpus.gpus[static_cast<std::size_t>(gpu)] : nullptr;
    const std::string gpu_text = facts ? std::to_string(gpu) + " (" + facts->pci_bus_id + ")" : "none";
    std::snprintf(line, sizeof line, "  %-5zu %-20s %-6d %-18s %-14s %s\n", r, rank.host.c_str(), rank.node_local_rank,
                  gpu_text.c_str(), rank.cpus.c_str(), facts ? facts->local_cpus.c_str() : "-");
    text += line;
  }
  return text;
}

}  // namespace

std::string info_text(const SystemInfo& info) {
  std::string text = "npgpu info: what a run here stands on (nothing is measured)\n\n";
  for (const HostFacts& host : info.hosts) text += host_text(host) + "\n";
  text += "MPI: " + info.mpi_library + "\n";
  text += row("CUDA-aware", info.mpi_cuda_aware);
  std::string parameters;
  for (const auto& [name, value] : info.mpi_parameters) parameters += (parameters.empty() ? "" : " ") + name + "=" + value;
  text += row("parameters", parameters.empty() ? "none set (OMPI_MCA_*)" : parameters);
  text += "libraries: HDF5 " + info.hdf5_version + ", hwloc " +
          (info.hosts.empty() ? "unknown" : info.hosts.front().topology.hwloc_version) + "\n\n";
  return text + ranks_text(info);
}

}  // namespace npgpu
