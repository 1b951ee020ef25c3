// The command line: every option, its default, and the one-line errors for what is not allowed.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

#include "cli/module_groups.hpp"
#include "cli/option_text.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/errors.hpp"
#include "cli/cli.hpp"
#include "npgpu/version.hpp"

namespace npgpu {
namespace {

template <typename Value>
Value choose(const std::map<std::string, Value>& choices, const std::string& name) {
  return choices.at(name);  // CLI::IsMember has already accepted the name
}

template <typename Value>
std::vector<std::string> names_of(const std::map<std::string, Value>& choices) {
  std::vector<std::string> names;
  for (const auto& entry : choices) names.push_back(entry.first);
  return names;
}

std::string quoted_command_line(const std::vector<std::string>& args) {
  std::string line;
  for (const std::string& arg : args) {
    if (!line.empty()) line += ' ';
    const bool plain = !arg.empty() && arg.find_first_of(" \t'\"\\$") == std::string::npos;
    line += plain ? arg : "'" + arg + "'";
  }
  return line;
}

const std::map<std::string, Pattern> kPatterns{
    {"pingpong", Pattern::pingpong}, {"stream", Pattern::stream}, {"bidir", Pattern::bidir}};
const std::map<std::string, Headline> kHeadlines{
    {"median", Headline::median}, {"min", Headline::min}, {"mean", Headline::mean}};
const std::map<std::string, CacheState> kCaches{{"cold", CacheState::cold}, {"warm", CacheState::warm}};
const std::map<std::string, Concurrency> kConcurrency{
    {"together", Concurrency::together}, {"alone", Concurrency::alone}};
const std::map<std::string, Units> kUnits{{"decimal", Units::decimal}, {"binary", Units::binary}};

// "npgpu info [--json]": a command of its own, so the run's options never apply to it.
ParsedCommand parse_info_command(const std::vector<std::string>& args) {
  ParsedCommand parsed;
  parsed.action = Action::info;
  CLI::App app{"npgpu info: the hosts, CPUs, NUMA nodes, GPUs and their links, networks, MPI and CUDA a run "
               "here would stand on; measures nothing. Under 'mpirun -np N' it also maps each rank to its host, "
               "GPU and cores.",
               "npgpu info"};
  app.add_flag("--json", parsed.info_json, "Print the same facts as JSON (docs/info-json.md)");
  std::vector<const char*> argv{args[0].c_str()};
  for (std::size_t i = 2; i < args.size(); ++i) argv.push_back(args[i].c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    parsed.action = Action::help;
    parsed.text = app.help();
  } catch (const CLI::ParseError& error) {
    throw UsageError(std::string("info: ") + error.what() + " (npgpu info takes --json and --help only)");
  }
  return parsed;
}

// Refused before anything is measured rather than after.
void check_np_out_path(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!parent.empty() && !std::filesystem::is_directory(parent, error))
    throw UsageError("--np-out " + path + ": directory '" + parent.string() + "' does not exist");
  if (std::filesystem::is_directory(path, error)) throw UsageError("--np-out " + path + ": is a directory; name a file");
}

}  // namespace

ParsedCommand parse_command_line(const std::vector<std::string>& args, const std::vector<CatalogEntry>& modules) {
  if (args.size() > 1 && args[1] == "info") return parse_info_command(args);
  ParsedCommand parsed;
  RunOptions& o = parsed.options;
  o.command_line = quoted_command_line(args);

  CLI::App app{"npgpu: how fast bytes move between host memory, GPUs and nodes, size by size.\n"
               "Run it under mpirun, e.g. 'mpirun -np 2 npgpu --module mpi -o run.h5'.",
               "npgpu"};
  app.set_version_flag("--version", std::string("npgpu ") + kVersion);
  app.get_formatter()->column_width(30);

  std::string pattern, headline = "median", cache = "cold", concurrency = "together", units = "decimal";
  std::string lower, upper, precision;
  bool list_modules = false;
  app.add_option("-m,--module", o.module, "Transport module to measure (see --list-modules)");
  app.add_flag("--list-modules", list_modules, "List every module, what it measures and whether it can run here");
  app.add_option("--pattern", pattern, "pingpong (latency = half a round trip), stream (one-way window + ack), "
                 "bidir (both ways at once); default: the module's first")->check(CLI::IsMember(names_of(kPatterns)));
  app.add_option("--lower", lower, std::string("Smallest message size (default 1 B). Sizes are ") + kSizeSyntax);
  app.add_option("--upper", upper, "Largest message size (default: the module's, see --list-modules)");
  app.add_option("--perturbation", o.schedule.perturbation, "NetPIPE perturbation p: also test n-p and n+p (0: off)")
      ->capture_default_str();
  app.add_flag("--fac2", o.schedule.fac2, "Plain powers of two instead of NetPIPE's schedule");
  app.add_option("--trial-time", o.calibration.trial_seconds, "Target seconds per timed trial")
      ->capture_default_str()->check(CLI::Range(1e-5, 60.0));
  app.add_option("--min-trials", o.min_trials, "Trials per size at least")->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--max-trials", o.max_trials, "Trials per size at most")->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--precision", precision, "Stop adding trials once the median's relative standard error is "
                 "inside this (default 0.01 = 1%)");
  app.add_option("--window", o.window, "Messages per window for stream and bidir at every size (default: up to 64, "
                 "enough to last half a trial or 50 round trips at the path's rate)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--timer", o.timer, "Host timer: wall (monotonic), gettimeofday, mpi (MPI_Wtime)")
      ->capture_default_str()->check(CLI::IsMember({"wall", "gettimeofday", "mpi"}));
  app.add_option("--headline", headline, "Statistic shown as the result: median, min, mean (default median)")
      ->check(CLI::IsMember(names_of(kHeadlines)));
  app.add_option("--cache", cache, "cold: rotate buffers over more memory than the caches (default); "
                 "warm: reuse one buffer")->check(CLI::IsMember(names_of(kCaches)));
  app.add_option("--concurrency", concurrency, "Modules where each rank measures its own path: together "
                 "(all ranks at once, default) or alone (one rank after another)")
      ->check(CLI::IsMember(names_of(kConcurrency)));
  app.add_flag("--check", o.check_data, "After each trial, move one message and check every byte");
  app.add_option("--units", units, "Throughput units on the console: decimal (GB/s = 1e9 B/s, default) or "
                 "binary (GiB/s)")->check(CLI::IsMember(names_of(kUnits)));
  app.add_option("-o,--output", o.output, "HDF5 file to create or append this run to (default: a new "
                 "npgpu-<module>-<time>.h5)");
  std::vector<std::string> expect_bw, expect_latency;
  app.add_option("--np-out", o.np_out, "Also write the curves as NetPIPE 3.x np.out columns to this file");
  app.add_option("--expect-bw", expect_bw, "SIZE=RATE, e.g. 1M=10GB/s: exit with code 5 (after writing the record) "
                 "when a curve's throughput at SIZE is below RATE; several allowed");
  app.add_option("--expect-latency", expect_latency, "SIZE=TIME, e.g. 8=2us: exit with code 5 (after writing the "
                 "record) when a curve's one-way time at SIZE is above TIME; several allowed");
  app.add_flag("--nvtx", o.nvtx, "NVTX ranges around each size and trial, for Nsight Systems");
  double timeout = 0;
  app.add_option("--timeout", timeout, "Seconds any one wait may last before the run stops with exit code 3, naming "
                 "what it waited for (default: 30 s + 10 x a trial's expected time at that size)")
      ->check(CLI::Range(0.001, 1e7));
  std::string flip;
  app.add_option("--test-flip-byte", flip, "Tests only: flip byte OFFSET of every arriving message of at least "
                 "SIZE bytes (OFFSET[@SIZE]), to prove the checks fail the run")->group("");
  std::string drift;
  app.add_option("--test-clock-drift", drift, "Tests only: from the size SIZE of a sweep on, the clock runs FACTOR "
                 "times fast (SIZE:FACTOR), to prove a step the machine made is told from a switch")->group("");

  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  ModuleGroups groups;
  add_module_groups(app, modules, module_named_in(argv), o, groups);
  app.footer("'npgpu info [--json]' shows what a run here would stand on (hosts, GPUs, links, MPI), measuring "
             "nothing.\nExit codes: 0 done; 1 the measurement failed (corrupt data, a library call); 2 bad input (nothing "
             "written); 3 a wait passed its bound (a rank or GPU stopped answering: --timeout); 4 interrupted by "
             "SIGTERM or SIGINT; 5 an --expect-bw or --expect-latency was not met (the record is written and says "
             "which). On 1, 3 and 4 the record keeps every finished size, the run marked failed or incomplete.");

  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    parsed.action = Action::help;
    parsed.text = app.help();
    return parsed;
  } catch (const CLI::CallForVersion&) {
    parsed.action = Action::version;
    parsed.text = std::string("npgpu ") + kVersion + "\n";
    return parsed;
  } catch (const CLI::ParseError& error) {
    throw UsageError(error.what());
  }

  finish_module_groups(app, groups, o);
  if (app.count("--timeout") > 0) o.timeout = timeout;
  o.window_given = app.count("--window") > 0;
  for (const std::string& text : expect_bw) o.expectations.push_back(parse_expect_bw(text));
  for (const std::string& text : expect_latency) o.expectations.push_back(parse_expect_latency(text));
  if (!o.np_out.empty()) check_np_out_path(o.np_out);
  if (!flip.empty()) o.flip = parse_byte_flip(flip);
  if (!drift.empty()) o.drift = parse_clock_drift(drift);

  if (list_modules) {
    parsed.action = Action::list_modules;
    return parsed;
  }
  if (o.module.empty()) throw UsageError("no module given: use --module NAME (see --list-modules)");
  o.pattern_given = !pattern.empty();
  if (o.pattern_given) o.pattern = choose(kPatterns, pattern);
  o.concurrency = choose(kConcurrency, concurrency);
  o.headline = choose(kHeadlines, headline);
  o.cache = choose(kCaches, cache);
  o.units = choose(kUnits, units);
  if (!precision.empty()) o.precision = parse_fraction(precision, "--precision");
  if (!lower.empty()) o.schedule.lower = parse_size(lower, "--lower");
  if (!upper.empty()) {
    o.schedule.upper = parse_size(upper, "--upper");
    o.upper_given = true;
  }
  if (o.upper_given && o.schedule.lower > o.schedule.upper)
    throw UsageError("--lower " + lower + " is above --upper " + upper + ": the smallest size must not exceed the largest");
  if (o.min_trials > o.max_trials)
    throw UsageError("--min-trials " + std::to_string(o.min_trials) + " is above --max-trials " +
                     std::to_string(o.max_trials));
  return parsed;
}


}  // namespace npgpu
