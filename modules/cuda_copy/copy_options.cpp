#include "copy_options.hpp"

#include <algorithm>

#include "cuda_common/gpu_options.hpp"
#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

// --pattern alone picks the direction that measures it; both given must agree. Returns the pattern
// the direction measures.
Pattern settle_direction(CopyOptions& options, const RunView& run) {
  if (run.pattern_given && !options.given("--direction")) {
    if (run.pattern == Pattern::pingpong) options.direction = "h2d2h";
    if (run.pattern == Pattern::bidir) options.direction = "bidir";
  }
  const Pattern measured = direction_pattern(options.direction);
  if (run.pattern_given && run.pattern != measured)
    throw UsageError("--pattern " + std::string(pattern_name(run.pattern)) + " conflicts with --direction " +
                     options.direction + ", which measures pattern " + pattern_name(measured) +
                     ": give one of them (h2d2h is the round trip, bidir both directions at once)");
  return measured;
}

void check_memory_kind(CopyOptions& options) {
  const bool pageable = options.host_memory == "pageable";
  if (options.direction == "d2d") {
    if (options.given("--memory"))
      throw UsageError("--memory " + options.host_memory +
                       " does not apply to --direction d2d: a copy inside one GPU uses no host memory");
    return;
  }
  if (!pageable) return;
  if (options.copy == "sm")
    throw UsageError("--copy sm cannot use --memory pageable: a kernel cannot reach pageable host memory; "
                     "use pinned, write-combined or registered");
  if (options.direction == "bidir")
    throw UsageError("--direction bidir cannot use --memory pageable: the driver copies pageable memory "
                     "synchronously, so the two directions cannot overlap; use pinned memory");
  if (options.given("--api") && options.api == "async")
    throw UsageError("--api async cannot use --memory pageable: the driver copies pageable memory synchronously "
                     "through its own pinned buffers, which would block behind the timing gate; use --api sync "
                     "(the default for pageable memory)");
  options.api = "sync";
}

}  // namespace

CopyLegs direction_legs(const std::string& direction) {
  if (direction == "d2h") return {{{kGpuSource, kHostTarget, 0}}, false};
  if (direction == "d2d") return {{{kGpuSource, kGpuTarget, 0}}, false};
  if (direction == "h2d2h") return {{{kHostSource, kGpuTarget, 0}, {kGpuTarget, kHostTarget, 0}}, true};
  if (direction == "bidir") return {{{kHostSource, kGpuTarget, 0}, {kGpuSource, kHostTarget, 1}}, false};
  return {{{kHostSource, kGpuTarget, 0}}, false};
}

std::vector<std::size_t> places_used(const CopyLegs& legs) {
  std::vector<std::size_t> places;
  for (const CopyLeg& leg : legs.legs)
    for (std::size_t place : {leg.from, leg.to})
      if (std::find(places.begin(), places.end(), place) == places.end()) places.push_back(place);
  std::sort(places.begin(), places.end());
  return places;
}

Pattern direction_pattern(const std::string& direction) {
  if (direction == "h2d2h") return Pattern::pingpong;
  if (direction == "bidir") return Pattern::bidir;
  return Pattern::stream;
}

std::optional<Pattern> CopyOptions::resolve(const RunView& run) {
  if (driver_api && copy == "sm")
    throw UsageError("--copy sm does not apply to module cuMemcpy: a copy kernel calls no copy API, so it is "
                     "measured once, with --module cudaMemcpy --copy sm");
  const Pattern measured = settle_direction(*this, run);
  check_memory_kind(*this);
  if (direction == "bidir" && api == "sync")
    throw UsageError("--direction bidir needs --api async: a blocking copy cannot overlap the other direction");
  return measured;
}

namespace {

std::shared_ptr<ModuleOptions> declare_copy_options(CLI::App& group, bool driver_api) {
  auto options = std::make_shared<CopyOptions>(driver_api);
  group.add_option("--direction", options->direction, "h2d, d2h, d2d (one way), h2d2h (round trip), bidir (h2d and "
                   "d2h at once)")->check(CLI::IsMember({"h2d", "d2h", "d2d", "h2d2h", "bidir"}));
  group.add_option("--memory", options->host_memory, "Host memory: pageable (malloc), pinned, write-combined, "
                   "registered (cudaHostRegister)")->check(CLI::IsMember({"pageable", "pinned", "write-combined", "registered"}));
  declare_copy(group, options->copy);
  group.add_option("--api", options->api, "async: copies timed by cudaEvents behind a spin kernel; sync: blocking "
                   "copies timed by the host clock")->check(CLI::IsMember({"async", "sync"}));
  declare_device(group, options->device);
  return options;
}

}  // namespace

std::shared_ptr<ModuleOptions> declare_cuda_memcpy_options(CLI::App& group) { return declare_copy_options(group, false); }
std::shared_ptr<ModuleOptions> declare_cu_memcpy_options(CLI::App& group) { return declare_copy_options(group, true); }

}  // namespace npgpu
