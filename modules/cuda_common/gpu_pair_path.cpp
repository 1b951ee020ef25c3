#include "gpu_pair_path.hpp"

#include <algorithm>

#include "npgpu/link_peaks.hpp"

namespace npgpu {
namespace {

bool over_nvlink(const GpuEnd& a, const GpuEnd& b) {
  return a.links.known && b.links.known && a.links.active > 0 && b.links.active > 0;
}

LinkPeak pair_peak(const GpuEnd& source, const GpuEnd& destination, bool peer_access) {
  if (peer_access && over_nvlink(source, destination))
    return nvlink_peak(std::min(source.links.active, destination.links.active), source.links.version_code,
                       source.gpu.compute_major);
  if (peer_access && !source.links.known) return {0, "unknown: " + source.links.why_unknown};
  const LinkPeak a = host_link_peak(source.gpu), b = host_link_peak(destination.gpu);
  const LinkPeak& slower = a.bytes_per_second <= b.bytes_per_second ? a : b;
  if (slower.bytes_per_second == 0) return {0, "unknown: sysfs does not give the GPUs' PCIe links"};
  const char* route = peer_access ? "peer to peer over PCIe, the slower GPU link: "
                                  : "no peer access, staged through host memory; at most the slower GPU link: ";
  return {slower.bytes_per_second, route + slower.how};
}

std::string path_text(const GpuEnd& source, const GpuEnd& destination, bool peer_access, const LinkPeak& peak) {
  if (!peer_access)
    return "NO PEER ACCESS between GPU " + std::to_string(source.gpu.index) + " and GPU " +
           std::to_string(destination.gpu.index) +
           ": CUDA stages these copies through host memory (cudaMemcpyPeerAsync's fallback)";
  if (over_nvlink(source, destination)) return "peer access over NVLink: " + peak.how;
  if (!source.links.known) return "peer access, over NVLink or PCIe (" + source.links.why_unknown + ")";
  return "peer access over PCIe (no active NVLink)";
}

}  // namespace

GpuPairPath gpu_pair_path(const GpuEnd& source, const GpuEnd& destination, bool peer_access) {
  const LinkPeak peak = pair_peak(source, destination, peer_access);
  return {path_text(source, destination, peer_access, peak), peak};
}

}  // namespace npgpu
