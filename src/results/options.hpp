#pragma once
// Everything the user chose on the command line, parsed and checked for form.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/calibration.hpp"
#include "results/clock_drift.hpp"
#include "results/expectations.hpp"
#include "npgpu/fault.hpp"
#include "npgpu/module_options.hpp"
#include "npgpu/pattern.hpp"
#include "npgpu/run_view.hpp"
#include "results/schedule.hpp"
#include "npgpu/sizes.hpp"
#include "results/statistics.hpp"

namespace npgpu {

// For modules where every rank measures its own path: all ranks at once (shared links show up)
// or one rank after another (each link alone).
enum class Concurrency { together, alone };

struct RunOptions {
  std::string module;
  Pattern pattern = Pattern::pingpong;
  bool pattern_given = false;  // otherwise the module's first pattern applies
  ScheduleOptions schedule;
  bool upper_given = false;  // otherwise the module's default upper size applies
  Calibration calibration;
  std::uint64_t min_trials = 3;
  std::uint64_t max_trials = 20;
  double precision = 0.01;
  std::uint64_t window = 64;  // stream and bidir: messages per window, at most (auto) or always (--window)
  bool window_given = false;
  std::string timer = "wall";
  Headline headline = Headline::median;
  CacheState cache = CacheState::cold;
  Concurrency concurrency = Concurrency::together;
  bool check_data = false;
  Units units = Units::decimal;
  bool nvtx = false;   // NVTX ranges around each size and trial, for Nsight Systems
  std::optional<double> timeout;  // seconds any one wait may last; otherwise it grows with the size
  std::optional<ByteFlip> flip;   // tests only: corrupt arriving messages (--test-flip-byte)
  std::optional<ClockDrift> drift;  // tests only: the machine slows from a size on (--test-clock-drift)
  std::string output;  // empty: a new file with a default name
  std::string np_out;  // also write the curves in NetPIPE's np.out columns here (--np-out)
  std::vector<Expectation> expectations;  // --expect-bw, --expect-latency: exit 5 when one is not met
  std::string command_line;

  // The module's own options (null where it has none: memcpy), parsed from its option group.
  std::shared_ptr<ModuleOptions> module_options;
  // Options given that the module does not take: another module's, or the pairing's where the module
  // pairs no ranks. Refused, naming the modules that take them, once the module is known to be built.
  std::vector<std::string> foreign_options;

  // Pair modules (Layout::pair): the driver pairs their ranks and, for --pairs all, draws a matrix.
  std::string pairs;                     // "A:B", "halves" or "all"; default 0:1
  std::vector<std::uint64_t> sizes;      // --pairs all: the sizes of the matrices (default 8 B and 1 MiB)
  double flag_below = 0.8;               // --pairs all: flag cells under this fraction of their class's median
  std::uint64_t sample = 0;              // --pairs all: partners per rank, 0 = every other rank
  std::optional<std::uint64_t> seed;     // --sample: the draw's seed; otherwise one is drawn and recorded

  // --load, as given: the ranks are checked against the run's size once it is known (LoadPlan).
  struct LoadText {
    std::string pattern, ranks, module;
    std::uint64_t bytes = 0;  // 0: the default
  };
  std::optional<LoadText> load;
  bool gpus_in_turn = false;  // under load: node-local ranks beyond the node's GPUs take them in turn
  bool waits_asleep = false;  // a load rank (RunView says why)
  bool tail = false;          // under load: each small pingpong size's 99th percentile, message by message
  // Runs of the same sweeps this launch makes after this one (--load's isolated run: the loaded
  // run), for the time left; not an option of the command line.
  std::uint64_t runs_to_follow = 0;
};

// What a module sees of the run (its host's last-level cache read here).
RunView module_view(const RunOptions& options);

// Settles the module's options against each other and against the run's, taking the pattern they
// measure where they settle it (ModuleOptions::resolve). UsageError, one line.
void settle_module_options(RunOptions& options);

}  // namespace npgpu
