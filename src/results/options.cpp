#include "results/options.hpp"

#include "system/sysinfo.hpp"

namespace npgpu {

RunView module_view(const RunOptions& options) {
  return {options.pattern,    options.pattern_given, options.cache,          last_level_cache_bytes(),
          options.check_data, options.flip,          options.gpus_in_turn, options.waits_asleep,
          options.module_options};
}

void settle_module_options(RunOptions& options) {
  if (options.module_options == nullptr) return;
  if (const std::optional<Pattern> settled = options.module_options->resolve(module_view(options))) {
    options.pattern = *settled;
    options.pattern_given = true;
  }
}

}  // namespace npgpu
