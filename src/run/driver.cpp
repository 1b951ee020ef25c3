// The experiment. Every rank runs this same code; rank 0 decides nothing alone: the collective
// max/any steps between trials make each decision the same on every rank, so no rank waits forever.
// Curves (curve_sweep.cpp) and matrices (matrix_sweep.cpp) measure each size alike
// (size_measurement.cpp), through the same collective steps (collective_steps.cpp).
#include "run/driver.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "results/clock_drift.hpp"
#include "npgpu/sizes.hpp"
#include "run/collective_steps.hpp"
#include "run/curve_sweep.hpp"
#include "run/matrix_sweep.hpp"

namespace npgpu {

void run_sweep(const SweepParts& parts) {
  if (parts.team.is_root()) {
    const std::lock_guard<std::mutex> hold(parts.record_lock);
    for (Reporter* reporter : parts.reporters) reporter->begin(parts.record);
  }
  const RunOptions& options = parts.record.options;
  std::optional<DriftingClock> drifting;  // --test-clock-drift
  if (options.drift) drifting.emplace(parts.clock, options.drift->factor);
  CollectiveSteps steps(parts.module, options, parts.team, drifting ? *drifting : parts.clock, parts.guard,
                        parts.record_lock);
  if (parts.record.pairing.mode == PairingMode::all && parts.record.module.layout == Layout::pair)
    measure_matrix(steps, parts.module, parts.record, parts.reporters);
  else
    sweep_curves(steps, parts.module, parts.record, parts.reporters, drifting ? &*drifting : nullptr);
}

std::string describe_waits(const RunOptions& options) {
  const std::string code = "; past it the run stops with exit code 3, saying what it waited for";
  if (options.timeout) return "each bounded by " + format_seconds(*options.timeout) + " (--timeout)" + code;
  return "each bounded by " + format_seconds(CollectiveSteps::kBaseWaitSeconds) + " + " +
         std::to_string(static_cast<int>(CollectiveSteps::kWaitTrials)) +
         " x the time a trial at that size is expected to take (--timeout to fix it)" + code;
}

std::string describe_window(const RunOptions& options, const ModuleInfo& module, const std::vector<Pattern>& patterns) {
  const bool windows = std::any_of(patterns.begin(), patterns.end(), [](Pattern p) { return p != Pattern::pingpong; });
  if (module.layout != Layout::pair || !windows) return {};
  const std::string each = " (transfers_per_rep in the record)";
  if (options.window_given) return std::to_string(options.window) + " messages at every size (--window)" + each;
  return "up to " + std::to_string(options.window) + " messages, enough to last " +
         format_seconds(options.calibration.trial_seconds / 2) +
         " (half a trial) or 50 round trips, whichever is longer, at the previous size's rate; --window fixes it" + each;
}

}  // namespace npgpu
