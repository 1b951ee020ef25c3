#pragma once
// Everything the user chose on the command line, parsed and checked for form.
#include <cstdint>
#include <string>
#include <vector>

#include "npgpu/calibration.hpp"
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
  std::uint64_t window = 64;
  std::string timer = "wall";
  Headline headline = Headline::median;
  CacheState cache = CacheState::cold;
  Concurrency concurrency = Concurrency::together;
  bool check_data = false;
  Units units = Units::decimal;
  std::string output;  // empty: a new file with a default name
  std::string command_line;
};

// What the command line asks for: a run, or one of the answers that need no run.
enum class Action { run, help, version, list_modules };

struct ParsedCommand {
  Action action = Action::run;
  RunOptions options;
  std::string text;  // --help / --version text
};

// Throws UsageError with one line naming what is wrong and what is allowed.
ParsedCommand parse_command_line(const std::vector<std::string>& args);

}  // namespace npgpu
