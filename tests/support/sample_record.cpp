#include "support/sample_record.hpp"

#include "npgpu/catalog.hpp"

namespace npgpu::test {

RunRecord sample_record(std::size_t sizes) {
  RunRecord record;
  record.module = {"mpi", "test curve", Layout::pair, {Pattern::pingpong}, 1024, ""};
  record.options.module = "mpi";
  record.options.command_line = "npgpu --module mpi";
  record.system.ranks = {{"alpha", "0-1", {{"gpu", "0"}, {"numa_node", "1"}}}, {"beta", "2", {}}};
  HostFacts alpha, beta;
  alpha.name = "alpha";
  alpha.topology.cpu_model = "Test CPU 9000";
  alpha.topology.sockets = 2;
  alpha.gpus.cuda_driver = "13.0";
  GpuFacts gpu;
  gpu.name = "Test GPU";
  gpu.pci_bus_id = "0000:1b:00.0";
  gpu.local_cpus = "0-7";
  alpha.gpus.gpus = {gpu};
  beta.name = "beta";
  record.system.hosts = {alpha, beta};
  record.system.host_count = 2;
  record.timer_description = "test clock";
  record.timer_resolution = 1e-9;
  record.started_utc = "2026-11-22T00:00:00Z";
  record.finished_utc = "2026-11-22T00:00:01Z";
  Curve curve{0, "alpha", "", {}, {63e9, "PCIe Gen5 x16"}, -1, "", {}, {}};
  for (std::size_t i = 0; i < sizes; ++i) {
    SizeResult size;
    size.bytes = 1ull << i;
    size.reps = 10;
    size.shape = {2, static_cast<double>(size.bytes)};
    const double unit = static_cast<double>(i + 1) * 1e-3;
    size.trial_seconds = {unit, 2 * unit, 3 * unit};
    summarize_trials(size);
    record.schedule.push_back(size.bytes);
    curve.sizes.push_back(size);
  }
  record.curves.push_back(curve);
  return record;
}

}  // namespace npgpu::test
