#include "system/host_topology.hpp"

#include <hwloc.h>

#include <memory>
#include <stdexcept>

namespace npgpu {
namespace {

// One hwloc topology with the PCI devices kept, loaded on first use.
class Topology {
 public:
  Topology() {
    hwloc_topology_init(&topology_);
    // I/O objects are off by default. Every PCI device is kept, so no GPU or NIC is ever missed;
    // bridges and OS devices are not needed to place a device.
    hwloc_topology_set_type_filter(topology_, HWLOC_OBJ_PCI_DEVICE, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(topology_) != 0) {
      hwloc_topology_destroy(topology_);
      throw std::runtime_error("hwloc could not read this machine's topology");
    }
  }
  ~Topology() { hwloc_topology_destroy(topology_); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  hwloc_topology_t get() const { return topology_; }

 private:
  hwloc_topology_t topology_ = nullptr;
};

const Topology& topology() {
  static const Topology loaded;
  return loaded;
}

std::string cpu_list(hwloc_const_cpuset_t set) {
  char* text = nullptr;
  if (set == nullptr || hwloc_bitmap_list_asprintf(&text, set) < 0) return "";
  const std::unique_ptr<char, decltype(&free)> owned(text, &free);
  return text;
}

std::string trimmed(std::string text) {
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string cpu_model(hwloc_topology_t t) {
  const hwloc_obj_t package = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
  const char* model = package != nullptr ? hwloc_obj_get_info_by_name(package, "CPUModel") : nullptr;
  return model != nullptr ? trimmed(model) : "unknown";
}

std::uint64_t last_level_cache(hwloc_topology_t t) {
  for (hwloc_obj_type_t level : {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE}) {
    const hwloc_obj_t cache = hwloc_get_obj_by_type(t, level, 0);
    if (cache != nullptr && cache->attr->cache.size > 0) return cache->attr->cache.size;
  }
  return 0;
}


}  // namespace

HostTopology host_topology() {
  const hwloc_topology_t t = topology().get();
  HostTopology host;
  host.cpu_model = cpu_model(t);
  host.sockets = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  host.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  host.hardware_threads = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  for (int i = 0; i < hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE); ++i) {
    const hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    host.numa_nodes.push_back({static_cast<int>(node->os_index), node->attr->numanode.local_memory, cpu_list(node->cpuset)});
  }
  host.last_level_cache_bytes = last_level_cache(t);
  const char* version = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "hwlocVersion");
  host.hwloc_version = version != nullptr ? version : "unknown";
  return host;
}

PciLocality pci_locality(const std::string& pci_bus_id) {
  const hwloc_topology_t t = topology().get();
  const hwloc_obj_t device = hwloc_get_pcidev_by_busidstring(t, pci_bus_id.c_str());
  if (device == nullptr) return {};
  // The first ancestor that is not I/O holds the cores and memory nearest the device.
  const hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(t, device);
  PciLocality found{true, -1, cpu_list(near->cpuset)};
  if (hwloc_bitmap_weight(near->nodeset) == 1) found.numa_node = hwloc_bitmap_first(near->nodeset);  // OS index
  return found;
}

}  // namespace npgpu
