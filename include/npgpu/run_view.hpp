#pragma once
// What a module reads of the run: the choices that shape how it moves bytes, and nothing of the
// driver's own (sizes, trials, statistics, output).
#include <cstdint>
#include <memory>
#include <optional>

#include "npgpu/fault.hpp"
#include "npgpu/module_options.hpp"

namespace npgpu {

struct RunView {
  Pattern pattern = Pattern::pingpong;
  bool pattern_given = false;  // otherwise the module's first pattern applies
  CacheState cache = CacheState::cold;
  std::uint64_t cache_bytes = 0;  // this host's last-level cache, which cold messages rotate past
  bool check_data = false;        // --check: every byte of one message per trial
  std::optional<ByteFlip> flip;   // tests only: corrupt arriving messages (--test-flip-byte)
  bool gpus_in_turn = false;      // under load: node-local ranks beyond the node's GPUs take them in turn
  // A load rank: a module that can wait for its transport asleep in the kernel does so (tcp), as bulk
  // traffic does, rather than spinning, so the load takes a path's bandwidth and not its hosts' cores.
  bool waits_asleep = false;
  // The module's own options (null where it has none: memcpy), parsed from its option group.
  std::shared_ptr<ModuleOptions> module_options;
};

}  // namespace npgpu
