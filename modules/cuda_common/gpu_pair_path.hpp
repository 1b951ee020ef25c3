#pragma once
// The path between two GPUs of a node and its theoretical peak, in words: what p2p records for the
// pairs it measures and what npgpu info shows for every pair.
#include <string>

#include "gpu.hpp"
#include "npgpu/module.hpp"
#include "nvlinks.hpp"

namespace npgpu {

struct GpuEnd {
  const Gpu& gpu;
  const NvLinks& links;
};

struct GpuPairPath {
  std::string text;  // "peer access over NVLink: ...", "peer access over PCIe ...", "NO PEER ACCESS ..."
  LinkPeak peak;     // one direction
};

// `peer_access`: the GPUs that do the work reach the other's memory.
GpuPairPath gpu_pair_path(const GpuEnd& source, const GpuEnd& destination, bool peer_access);

}  // namespace npgpu
