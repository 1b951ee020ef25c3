#pragma once
// Options several GPU modules declare in their own groups, worded the same in each. No CUDA here:
// the groups are declared in every build, so that --help and the refusals know them everywhere.
#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>

#include "npgpu/module_options.hpp"

namespace npgpu {

// --device N: the GPU to use instead of the node-local rank's (-1 until given).
inline void declare_device(CLI::App& group, int& device) {
  group.add_option("--device", device, "GPU index to use instead of the node-local rank's")->check(CLI::NonNegativeNumber);
}

inline std::optional<int> chosen_device(int device) { return device >= 0 ? std::optional<int>(device) : std::nullopt; }

// --copy ce|sm: the copy engine or a copy kernel on the SMs.
inline void declare_copy(CLI::App& group, std::string& copy) {
  group.add_option("--copy", copy, "GPU copies by the copy engine (ce) or a copy kernel on the SMs (sm)")
      ->check(CLI::IsMember({"ce", "sm"}));
}

// The options of a module whose one option of its own is --device (cudaIpc, nccl).
struct DeviceOptions : ModuleOptions {
  int device = -1;
};

inline std::shared_ptr<ModuleOptions> declare_device_options(CLI::App& group) {
  auto options = std::make_shared<DeviceOptions>();
  declare_device(group, options->device);
  return options;
}

}  // namespace npgpu
