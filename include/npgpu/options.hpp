#pragma once
// Everything the user chose on the command line, parsed and checked for form.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "npgpu/calibration.hpp"
#include "npgpu/expectations.hpp"
#include "npgpu/fault.hpp"
#include "npgpu/module_options.hpp"
#include "npgpu/schedule.hpp"
#include "npgpu/sizes.hpp"
#include "npgpu/statistics.hpp"

namespace npgpu {

enum class Pattern { pingpong, stream, bidir };
const char* pattern_name(Pattern pattern);

enum class CacheState { cold, warm };

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
};

// What the command line asks for: a run, or one of the answers that need no run.
enum class Action { run, help, version, list_modules, info };

struct ParsedCommand {
  Action action = Action::run;
  RunOptions options;
  std::string text;        // --help / --version text
  bool info_json = false;  // npgpu info --json
};

struct CatalogEntry;

// Throws UsageError with one line naming what is wrong and what is allowed. "npgpu info ..." is
// the info command; every other command line is a run (or --help, --version, --list-modules).
// `modules`: the catalog, whose entries declare their option groups (module_catalog()).
ParsedCommand parse_command_line(const std::vector<std::string>& args, const std::vector<CatalogEntry>& modules);

// The options `entry` takes besides the run's: its own group's, and the pairing's for a pair module.
std::vector<std::string> options_taken(const CatalogEntry& entry);

}  // namespace npgpu
