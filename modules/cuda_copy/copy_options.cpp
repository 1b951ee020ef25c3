#include "copy_options.hpp"

#include <algorithm>

#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

bool given(const RunOptions& options, const char* name) {
  const auto& names = options.module_options_given;
  return std::find(names.begin(), names.end(), name) != names.end();
}

// --pattern alone picks the direction that measures it; both given must agree.
void settle_direction(RunOptions& options) {
  if (options.pattern_given && !given(options, "--direction")) {
    if (options.pattern == Pattern::pingpong) options.direction = "h2d2h";
    if (options.pattern == Pattern::bidir) options.direction = "bidir";
  }
  const Pattern measured = direction_pattern(options.direction);
  if (options.pattern_given && options.pattern != measured)
    throw UsageError("--pattern " + std::string(pattern_name(options.pattern)) + " conflicts with --direction " +
                     options.direction + ", which measures pattern " + pattern_name(measured) +
                     ": give one of them (h2d2h is the round trip, bidir both directions at once)");
  options.pattern = measured;
  options.pattern_given = true;
}

void check_memory_kind(RunOptions& options) {
  const bool pageable = options.host_memory == "pageable";
  if (options.direction == "d2d") {
    if (given(options, "--memory"))
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
  if (given(options, "--api") && options.api == "async")
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

void resolve_cuda_memcpy_options(RunOptions& options) {
  settle_direction(options);
  check_memory_kind(options);
  if (options.direction == "bidir" && options.api == "sync")
    throw UsageError("--direction bidir needs --api async: a blocking copy cannot overlap the other direction");
}

void resolve_cu_memcpy_options(RunOptions& options) {
  if (options.copy == "sm")
    throw UsageError("--copy sm does not apply to module cuMemcpy: a copy kernel calls no copy API, so it is "
                     "measured once, with --module cudaMemcpy --copy sm");
  resolve_cuda_memcpy_options(options);
}

}  // namespace npgpu
