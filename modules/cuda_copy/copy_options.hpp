#pragma once
// cudaMemcpy and cuMemcpy before any GPU is touched: which option combinations make sense, and the
// copies each direction makes. No CUDA here.
#include <memory>
#include <string>

#include "cuda_common/copy_legs.hpp"
#include "npgpu/module_options.hpp"
#include "npgpu/run_view.hpp"

namespace npgpu {

// The four places a direction's copies use; a direction uses some of them.
enum CopyPlace : std::size_t { kHostSource, kHostTarget, kGpuSource, kGpuTarget, kCopyPlaces };
constexpr bool on_host(std::size_t place) { return place == kHostSource || place == kHostTarget; }

// h2d, d2h, d2d: one copy; h2d2h: h2d then d2h of the same message, chained (the round trip);
// bidir: h2d and d2h at once on two streams.
CopyLegs direction_legs(const std::string& direction);

// The places a direction reads or writes.
std::vector<std::size_t> places_used(const CopyLegs& legs);

// The pattern each direction measures: h2d2h pingpong, bidir bidir, the others stream.
Pattern direction_pattern(const std::string& direction);

// cudaMemcpy's and cuMemcpy's own options. resolve() settles --direction with --pattern, and refuses
// combinations that cannot work (UsageError, one line): host memory options with d2d, pageable memory
// with a kernel, with async copies or with bidir, blocking copies with bidir; and for cuMemcpy,
// --copy sm (a kernel calls no copy API, so it belongs to cudaMemcpy).
struct CopyOptions : ModuleOptions {
  explicit CopyOptions(bool driver_api) : driver_api(driver_api) {}
  std::optional<Pattern> resolve(const RunView& run) override;

  bool driver_api;                     // cuMemcpy
  std::string direction = "h2d";       // h2d, d2h, d2d, h2d2h, bidir
  std::string host_memory = "pinned";  // pageable, pinned, write-combined, registered
  std::string copy = "ce";             // ce (copy engine) or sm (a copy kernel)
  std::string api = "async";           // async (cudaEvents behind a spin kernel) or sync (host clock)
  int device = -1;                     // GPU index, instead of the node-local rank's
};

// The option groups of cudaMemcpy and cuMemcpy (the catalog's DeclareOptions).
std::shared_ptr<ModuleOptions> declare_cuda_memcpy_options(CLI::App& group);
std::shared_ptr<ModuleOptions> declare_cu_memcpy_options(CLI::App& group);

}  // namespace npgpu
