#include "nvlinks.hpp"

#include <dlfcn.h>

namespace npgpu {
namespace {

// The handful of NVML declarations used, as nvml.h has them.
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlInvalidArgument = 2;  // past the last link
constexpr int kNvmlFeatureEnabled = 1;
struct NvmlDeviceOpaque;
using NvmlDevice = NvmlDeviceOpaque*;

struct Nvml {
  NvmlReturn (*init)();
  NvmlReturn (*shutdown)();
  NvmlReturn (*device_by_pci_bus_id)(const char*, NvmlDevice*);
  NvmlReturn (*link_state)(NvmlDevice, unsigned, int*);
  NvmlReturn (*link_version)(NvmlDevice, unsigned, unsigned*);
};

template <typename Function>
bool find(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  return function != nullptr;
}

NvLinks count_links(const Nvml& nvml, const std::string& pci_bus_id) {
  NvmlDevice device = nullptr;
  if (nvml.device_by_pci_bus_id(pci_bus_id.c_str(), &device) != kNvmlSuccess)
    return {false, 0, 0, "NVML does not know GPU " + pci_bus_id};
  NvLinks links{true, 0, 0, ""};
  for (unsigned link = 0; link < 64; ++link) {
    int state = 0;
    const NvmlReturn status = nvml.link_state(device, link, &state);
    if (status == kNvmlInvalidArgument) break;
    if (status != kNvmlSuccess || state != kNvmlFeatureEnabled) continue;
    if (links.active++ == 0) nvml.link_version(device, link, &links.version_code);
  }
  return links;
}

}  // namespace

NvLinks nvlinks_of(const std::string& pci_bus_id) {
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return {false, 0, 0, "NVML (libnvidia-ml.so.1) is not installed"};
  Nvml nvml{};
  NvLinks links{false, 0, 0, "NVML lacks the NVLink queries"};
  if (find(library, "nvmlInit_v2", nvml.init) && find(library, "nvmlShutdown", nvml.shutdown) &&
      find(library, "nvmlDeviceGetHandleByPciBusId_v2", nvml.device_by_pci_bus_id) &&
      find(library, "nvmlDeviceGetNvLinkState", nvml.link_state) &&
      find(library, "nvmlDeviceGetNvLinkVersion", nvml.link_version)) {
    if (nvml.init() == kNvmlSuccess) {
      links = count_links(nvml, pci_bus_id);
      nvml.shutdown();
    } else {
      links.why_unknown = "NVML did not start (nvmlInit_v2 failed)";
    }
  }
  dlclose(library);
  return links;
}

}  // namespace npgpu
