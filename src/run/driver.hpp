#pragma once
// The experiment: warm-up, calibration, trials until precise enough, statistics, reporting.
#include <mutex>
#include <vector>

#include "npgpu/clock.hpp"
#include "npgpu/module.hpp"
#include "results/run_record.hpp"
#include "run/run_guard.hpp"
#include "npgpu/team.hpp"

namespace npgpu {

// What a sweep works with. `record_lock` is held on rank 0 while the sweep changes the record, so
// the guard can save it from its own thread at any moment.
struct SweepParts {
  Module& module;
  RunRecord& record;
  const Team& team;
  const Clock& clock;
  std::vector<Reporter*> reporters;  // called on rank 0 only
  RunGuard& guard;
  std::mutex& record_lock;
};

// Collective. Sweeps record.schedule with the module (already set up) and fills record.curves (or
// record.matrix) on rank 0, calling the reporters there as each size completes. Every wait is
// bounded through the guard.
void run_sweep(const SweepParts& parts);

// What the record says of the bound on waits.
std::string describe_waits(const RunOptions& options);

// What the record says of the windows: empty where no size of the run is a window of messages.
std::string describe_window(const RunOptions& options, const ModuleInfo& module, const std::vector<Pattern>& patterns);

}  // namespace npgpu
