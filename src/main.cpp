// npgpu's entry point: parse, check everything that can be checked before measuring, set the
// module up, sweep, report. Every check that one rank alone may fail goes through
// Team::first_error so that all ranks stop together.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <ctime>
#include <optional>
#include <random>
#include <string>

#include "npgpu/buffers.hpp"
#include "cli/cli.hpp"
#include "cli/module_groups.hpp"
#include "npgpu/catalog.hpp"
#include "run/console.hpp"
#include "run/driver.hpp"
#include "run/load_runner.hpp"
#include "npgpu/errors.hpp"
#include "record/hdf5_record.hpp"
#include "system/info_text.hpp"
#include "system/oversubscription.hpp"
#include "system/sysinfo.hpp"
#include "run/nvtx.hpp"
#include "run/after_run.hpp"
#include "record/record_writer.hpp"
#include "results/run_data.hpp"
#include "run/run_guard.hpp"
#include "system/system_json.hpp"
#include "npgpu/system_probes.hpp"
#include "cli/subcommands.hpp"
#include "report/expectations.hpp"

namespace npgpu {
namespace {

std::string utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[64];
  std::strftime(text, sizeof text, format, &parts);
  return text;
}

int ranks_on_this_host(const Team& team) {
  MPI_Comm local;
  MPI_Comm_split_type(team.comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int count = 1;
  MPI_Comm_size(local, &count);
  MPI_Comm_free(&local);
  return count;
}

int fail(const Team& team, const std::string& message, int code) {
  if (team.is_root()) std::fprintf(stderr, "npgpu: error: %s\n", message.c_str());
  return code;
}

std::string timing_text(const ModuleInfo& info, const Module& module, const RankPairing& pairing, Pattern pattern) {
  if (info.layout == Layout::per_rank) return "each rank times its own transfers";
  if (pairing.mode == PairingMode::all) {
    const RepetitionWords latency = module.repetition_words(Pattern::pingpong);
    const RepetitionWords throughput = module.repetition_words(Pattern::stream);
    return "every rank times its exchanges with rank + k: pingpong " + latency.timed + " (one transfer = " +
           latency.one_transfer + ") or stream " + throughput.timed + " (one transfer = " + throughput.one_transfer + ")";
  }
  const std::string who = pairing.mode == PairingMode::one_pair ? "rank " + std::to_string(pairing.first)
                                                                : "the first rank of each pair";
  const RepetitionWords words = module.repetition_words(pattern);
  return who + " times " + words.timed + "; one transfer = " + words.one_transfer;
}

std::string buffers_text(const RunOptions& options, std::uint64_t cache_bytes) {
  if (options.cache == CacheState::warm) return "cache-warm: every message reuses the same buffer";
  return "cache-cold: messages rotate over " +
         format_bytes(rotation_pool_bytes(options.schedule.upper, cache_bytes, true)) +
         " per buffer (last-level cache " + format_bytes(cache_bytes) + ")";
}

std::string modules_taking(const std::string& option) {
  std::string names;
  for (const CatalogEntry& entry : module_catalog()) {
    const std::vector<std::string> taken = options_taken(entry);
    if (std::find(taken.begin(), taken.end(), option) != taken.end()) names += (names.empty() ? "" : ", ") + entry.info.name;
  }
  return names.empty() ? "no module takes it" : "it applies to " + names;
}

std::string data_check_text(const std::string& per_message, bool every_byte) {
  const std::string messages = per_message.empty() ? "no per-message check" : per_message;
  return messages + (every_byte ? "; after every trial, one message checked byte for byte (--check)"
                                : "; no full check (--check adds one after every trial)");
}

// Everything decided from the command line alone; the same on every rank.
struct Plan {
  const CatalogEntry* entry = nullptr;
  RunOptions options;
  RankPairing pairing;
  std::vector<std::uint64_t> schedule;
  std::vector<Pattern> patterns;  // of each size
};

constexpr double kSetupWaitSeconds = 120;  // NCCL's communicator, TCP connections, IPC imports
constexpr std::uint64_t kLatencyMatrixBytes = 8;
constexpr std::uint64_t kThroughputMatrixBytes = 1 * MiB;

// Pair modules: which ranks pair up, and for --pairs all the sizes and patterns of the matrices.
void plan_pairs(Plan& plan, int ranks) {
  RunOptions& options = plan.options;
  const std::string& name = plan.entry->info.name;
  if (ranks < 2)
    throw UsageError("module " + name + " measures between pairs of ranks: it needs at least 2, and this run has " +
                     std::to_string(ranks) + ": start it with 'mpirun -np 2 npgpu --module " + name + "'");
  plan.pairing = parse_rank_pairing(options.pairs, ranks, options.sample, options.seed.value_or(0));
  if (options.concurrency == Concurrency::alone) {
    if (plan.pairing.mode != PairingMode::halves)
      throw UsageError("--concurrency alone: between pairs of ranks it applies to --pairs halves (each pair alone, in "
                       "turn, against all pairs at once), and this run measures --pairs " + describe(plan.pairing));
    plan.pairing.one_at_a_time = true;
  }
  if (plan.pairing.mode != PairingMode::all) {
    if (!options.sizes.empty())
      throw UsageError("--sizes applies to --pairs all (the other pairings sweep --lower to --upper)");
    return;
  }
  if (!options.expectations.empty())
    throw UsageError("--expect-bw, --expect-latency: they judge curves, and --pairs all measures matrices; use them "
                     "with one pair (A:B) or --pairs halves");
  if (options.pattern_given && options.pattern == Pattern::bidir)
    throw UsageError("--pattern bidir: --pairs all measures pingpong (a latency matrix) or stream (a throughput matrix)");
  if (options.upper_given)
    throw UsageError("--upper: --pairs all measures at --sizes (default 8,1M), not over a range");
  plan.schedule = options.sizes.empty() ? std::vector<std::uint64_t>{kLatencyMatrixBytes, kThroughputMatrixBytes}
                                        : options.sizes;
  for (std::uint64_t bytes : plan.schedule)
    plan.patterns.push_back(options.pattern_given ? options.pattern : all_pairs_pattern(bytes));
  options.schedule.lower = *std::min_element(plan.schedule.begin(), plan.schedule.end());
  options.schedule.upper = *std::max_element(plan.schedule.begin(), plan.schedule.end());
  options.upper_given = true;
}

// What a module this build lacks needs, in the words of a refusal.
std::string lacked_by_this_build(const ModuleInfo& info) {
  return "needs " + info.build_needs + ", and this build has none: rebuild where " + info.build_needs +
         " is installed (see README, 'Building')";
}

Plan make_plan(RunOptions options, int ranks) {
  Plan plan;
  plan.entry = &find_module(options.module);
  const ModuleInfo& info = plan.entry->info;
  if (plan.entry->make == nullptr) throw UsageError("module " + info.name + " " + lacked_by_this_build(info));
  if (!options.foreign_options.empty()) {
    const std::string& given = options.foreign_options.front();
    throw UsageError(given + " does not apply to module " + info.name + " (" + modules_taking(given) + ")");
  }
  if (options.nvtx && !nvtx_available())
    throw UsageError("--nvtx: this build has no NVTX (it comes with the CUDA toolkit); rebuild with CUDA");
  settle_module_options(options);
  plan.options = std::move(options);
  if (info.layout == Layout::pair) plan_pairs(plan, ranks);
  RunOptions& o = plan.options;
  if (!o.pattern_given) o.pattern = info.patterns.front();
  if (std::find(info.patterns.begin(), info.patterns.end(), o.pattern) == info.patterns.end()) {
    std::string allowed;
    for (Pattern p : info.patterns) allowed += (allowed.empty() ? "" : ", ") + std::string(pattern_name(p));
    throw UsageError("--pattern " + std::string(pattern_name(o.pattern)) + ": module " + info.name + " supports " +
                     allowed);
  }
  if (!o.upper_given) {
    o.schedule.upper = info.default_upper;
    if (o.schedule.lower > o.schedule.upper)
      throw UsageError("--lower " + format_bytes(o.schedule.lower) + " is above module " + info.name +
                       "'s default upper size " + format_bytes(info.default_upper) + ": give --upper too");
  }
  if (plan.schedule.empty()) {
    plan.schedule = make_schedule(o.schedule);
    plan.patterns.assign(plan.schedule.size(), o.pattern);
  }
  return plan;
}

void check_memory(const Module& module, const RunOptions& options, int ranks_here) {
  const std::uint64_t per_rank = module.host_bytes_needed(module_view(options), options.schedule.upper);
  const std::uint64_t available = physical_memory_bytes();
  if (per_rank / 2 * static_cast<std::uint64_t>(ranks_here) >= available / 2)
    throw UsageError("--upper " + format_bytes(options.schedule.upper) + ": module " + options.module + " would need " +
                     format_capacity(per_rank) + " of host memory on each of " + std::to_string(ranks_here) +
                     " ranks here, and this machine has " + format_capacity(available) + "; choose a smaller --upper");
}

// Runs a step on every rank and returns the first failure any rank had, on every rank.
template <typename Step>
std::optional<std::string> on_every_rank(const Team& team, Step step) {
  std::optional<std::string> failure;
  try {
    step();
  } catch (const UsageError& error) {
    failure = error.what();
  }
  return team.first_error(failure);
}

// A measurement failed (RunError): rank 0 keeps what was finished, marked failed with why.
void save_failed(RunRecord& record, RecordWriter& writer, std::mutex& lock, const std::string& why) {
  const std::lock_guard<std::mutex> hold(lock);
  record.status = RunStatus::failed;
  record.status_reason = why;
  record.finished_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  try {
    std::fprintf(stderr, "npgpu: the run failed; what it finished is in %s (%s, marked failed)\n",
                 record.options.output.c_str(), writer.finish(record).c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "npgpu: the run failed, and what it finished could not be saved: %s\n", error.what());
  }
}

// What a run under load adds to each of the victims' two runs: which it is, and at the loaded one's
// end, before it is written, what the load moved.
struct UnderLoad {
  LoadPlan load;
  RankWhereabouts where;
  bool loaded = false;
  LoadSignals* signals = nullptr;  // the victims' first rank: stops the load
};

int measure(ParsedCommand command, const Team& team, RunGuard& guard, const UnderLoad* under_load);
int run_under_load(ParsedCommand command, const Team& world, RunGuard& guard);

int run(const std::vector<std::string>& args, const Team& team, RunGuard& guard) {
  ParsedCommand command;
  try {
    command = parse_command_line(args, module_catalog());
  } catch (const UsageError& error) {
    return fail(team, error.what(), kExitUsage);
  }
  if (command.action == Action::help || command.action == Action::version) {
    if (team.is_root()) std::fputs((command.text + (command.action == Action::help ? subcommands_help() : "")).c_str(), stdout);
    return 0;
  }
  if (command.action == Action::list_modules) {
    if (team.is_root()) std::fputs(describe_modules(team.size()).c_str(), stdout);
    return 0;
  }
  if (command.action == Action::info) {
    // The same collection as a run's record, with no module facts.
    const SystemInfo info = collect_system_info(team, {}, system_probes());
    if (team.is_root()) std::fputs(command.info_json ? (system_json(info).dump(2) + "\n").c_str() : info_text(info).c_str(), stdout);
    return 0;
  }
  if (command.options.load) return run_under_load(std::move(command), team, guard);
  return measure(std::move(command), team, guard, nullptr);
}

// A load rank: its module moves the load's cycles among the load ranks until the victims stop it.
int load_side(RunOptions options, const LoadPlan& load, const Team& team, RunGuard& guard, LoadSignals& signals) {
  const CatalogEntry& entry = find_module(load.module);
  // The options on the command line are the measured module's; another load module takes its defaults.
  if (load.module != options.module) options.module_options = default_module_options(entry.info);
  options.module = load.module;
  options.pattern = pair_pattern(load.pattern);
  options.schedule.upper = load.bytes;
  options.waits_asleep = true;
  const RankPairing pairing = load_pairing(load);
  const std::unique_ptr<Module> module = entry.make();
  const std::unique_ptr<Clock> clock = make_clock(options.timer);
  const GuardedAbort abort(guard, [&module] { module->abort_waits(); });
  guard.expect(signals.bound(), "the other load ranks while setting up load module " + load.module);
  module->setup({team, module_view(options), load.bytes, pairing});
  make_load(*module, team, load, *clock, signals);
  return 0;
}

// Whether the load module runs here and can make the load's pattern; UsageError saying why not, or
// naming the patterns it can make.
void check_load_module(const LoadPlan& load) {
  const CatalogEntry& entry = find_module(load.module);
  if (entry.make == nullptr) throw UsageError("--load-module " + load.module + " " + lacked_by_this_build(entry.info));
  if (entry.unavailable_here != nullptr)
    if (const std::string why = entry.unavailable_here(); !why.empty())
      throw UsageError("--load-module " + load.module + " cannot run here: " + why);
  const ModuleInfo& module = entry.info;
  const auto makes = [&module](LoadPattern pattern) {
    if (module.layout == Layout::per_rank && (pattern == LoadPattern::incast || pattern == LoadPattern::alltoall)) return false;
    if (pattern == LoadPattern::incast && !module.shares_a_receiver) return false;
    return std::find(module.patterns.begin(), module.patterns.end(), pair_pattern(pattern)) != module.patterns.end();
  };
  if (makes(load.pattern)) return;
  std::string can;
  for (LoadPattern pattern : {LoadPattern::stream, LoadPattern::bidir, LoadPattern::incast, LoadPattern::alltoall})
    if (makes(pattern)) can += (can.empty() ? "" : ", ") + std::string(load_pattern_name(pattern));
  throw UsageError(std::string("--load ") + load_pattern_name(load.pattern) + ": module " + load.module +
                   " cannot make it" +
                   (load.pattern == LoadPattern::incast ? " (its senders write into the receiver's memory)" : "") +
                   "; it makes: " + can);
}

// Collective: every rank's host and machine, load ranks' too, gathered before the world splits: the
// victims' record says what they share with the load.
RankWhereabouts whereabouts(const Team& world) {
  const std::vector<std::string> machines_and_cores = all_gather(world.comm(), machine_and_cores());
  RankWhereabouts where{all_gather(world.comm(), mpi_host_name()), {}, oversubscription(machines_and_cores)};
  for (const std::string& text : machines_and_cores) where.machines.push_back(machine_of(text));
  return where;
}

// The load ranks make load; the others measure as --pairs says among themselves, alone and then
// under the load, into two runs of one record.
int run_under_load(ParsedCommand command, const Team& world, RunGuard& guard) {
  const RunOptions::LoadText text = *command.options.load;
  command.options.load.reset();
  command.options.gpus_in_turn = true;
  command.options.tail = true;
  LoadPlan load;
  std::optional<std::string> failure = on_every_rank(world, [&] {
    load = {parse_load_pattern(text.pattern), parse_rank_list(text.ranks, world.size()),
            text.bytes != 0 ? text.bytes : kDefaultLoadBytes, text.module.empty() ? command.options.module : text.module,
            world.size()};
    load.own_paths = find_module(load.module).info.layout == Layout::per_rank;
    check_load(load);
    command.options.pairs = victims_pairs(command.options.pairs, load);
    check_load_module(load);
    if (command.options.output.empty())
      command.options.output = default_output_path(command.options.module, utc_now("%Y%m%d-%H%M%S"));
  });
  if (failure) return fail(world, *failure, kExitUsage);
  const RankWhereabouts where = whereabouts(world);
  const bool makes_load = std::binary_search(load.ranks.begin(), load.ranks.end(), world.rank());
  MPI_Comm comm;
  MPI_Comm_split(world.comm(), makes_load ? 1 : 0, world.rank(), &comm);
  int code = 0;
  {
    const Team team(comm);
    LoadSignals signals(world.comm(), load.ranks.front(), victims_of(load).front(), guard,
                        command.options.timeout.value_or(kSetupWaitSeconds));
    if (makes_load) {
      code = load_side(command.options, load, team, guard, signals);
    } else {
      const UnderLoad isolated{load, where, false, nullptr};
      code = measure(command, team, guard, &isolated);
      // Decided together: the first rank alone may end with a code (an expectation not met).
      if (team.any(code != 0)) {
        if (team.is_root()) signals.cancel();
      } else {
        if (team.is_root()) signals.start();
        team.barrier();
        const UnderLoad loaded{load, where, true, &signals};
        code = measure(std::move(command), team, guard, &loaded);
      }
    }
  }
  MPI_Comm_free(&comm);
  return code;
}

int measure(ParsedCommand command, const Team& team, RunGuard& guard, const UnderLoad* under_load) {
  const int ranks_here = ranks_on_this_host(team);
  if (under_load != nullptr && !under_load->loaded) command.options.runs_to_follow = 1;  // the loaded run's time left too
  // A seed drawn once, on rank 0, so that every rank samples the same partners; recorded.
  if (!command.options.seed) command.options.seed = team.broadcast(std::random_device{}());
  Plan plan;
  std::unique_ptr<Module> module;
  std::unique_ptr<Clock> clock;
  RunRecord record;
  record.started_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  std::optional<std::string> failure = on_every_rank(team, [&] {
    plan = make_plan(command.options, team.size());
    if (plan.entry->unavailable_here != nullptr)
      if (const std::string why = plan.entry->unavailable_here(); !why.empty())
        throw UsageError("module " + plan.options.module + " cannot run here: " + why);
    clock = make_clock(plan.options.timer);
    module = plan.entry->make();
    check_memory(*module, plan.options, ranks_here);
    if (team.is_root()) {
      if (plan.options.output.empty())
        plan.options.output = default_output_path(plan.options.module, utc_now("%Y%m%d-%H%M%S"));
      check_output_path(plan.options.output);
    }
  });
  if (failure) return fail(team, *failure, kExitUsage);

  const GuardedAbort abort(guard, [&module] { module->abort_waits(); });
  guard.expect(plan.options.timeout.value_or(kSetupWaitSeconds), "the other ranks while setting up module " + plan.options.module);
  const RunView view = module_view(plan.options);
  failure = on_every_rank(team, [&] { module->setup({team, view, plan.options.schedule.upper, plan.pairing}); });
  if (failure) return fail(team, *failure, kExitUsage);

  record.module = plan.entry->info;
  record.options = plan.options;
  record.schedule = plan.schedule;
  record.patterns = plan.patterns;
  record.pairing = plan.pairing;
  record.system = collect_system_info(team, module->placement(), system_probes());
  record.timer_description = clock->description();
  record.timer_resolution = measure_resolution(*clock);
  record.primary_timer = module->primary_timer_name();
  if (record.primary_timer.empty())
    record.primary_timer = "host clock (--timer " + plan.options.timer + ": " + record.timer_description + ")";
  record.alt_timer = module->alt_timer_name();
  record.data_check = data_check_text(module->message_check(), plan.options.check_data);
  record.timing = timing_text(record.module, *module, plan.pairing, plan.options.pattern);
  record.throughput_meaning = module->throughput_meaning(plan.options.pattern);
  record.buffers = buffers_text(plan.options, last_level_cache_bytes());
  record.waits = describe_waits(plan.options);
  record.window_rule = describe_window(plan.options, plan.entry->info, plan.patterns);
  guard.idle();

  // Rank 0 keeps every finished size on disk as it goes, and the guard saves it if the run stops.
  std::mutex record_lock;
  std::optional<RecordWriter> writer;
  std::optional<GuardedRecord> guarded;  // goes before the record and the writer it points at
  ConsoleReporter console(stdout);
  std::optional<SnapshotReporter> snapshots;
  std::vector<Reporter*> reporters;
  if (team.is_root()) {
    writer.emplace(plan.options.output);
    for (const std::string& adopted : writer->adopted())
      std::printf("npgpu: kept in the record a run whose writer died: %s\n", adopted.c_str());
    record.record_lock = writer->locking();
    snapshots.emplace(*writer);
    reporters = {&console, &*snapshots};
    guarded.emplace(guard, record, *writer, record_lock);
  }
  try {
    run_sweep({*module, record, team, *clock, reporters, guard, record_lock});
  } catch (const FailedOnEveryRank& error) {
    guard.idle();
    if (!team.is_root()) return kExitRunError;
    std::fprintf(stderr, "npgpu: %s\n", error.what());
    save_failed(record, *writer, record_lock, error.what());
    return kExitRunError;
  } catch (const RunError& error) {
    if (team.is_root()) save_failed(record, *writer, record_lock, error.what());
    throw;
  }
  if (under_load != nullptr && team.is_root()) {
    record.load = LoadFacts{under_load->load, under_load->loaded, {}, under_load->where};
    if (under_load->loaded) record.load->moved = under_load->signals->stop();
  }
  if (!team.is_root()) return 0;
  const std::lock_guard<std::mutex> hold(record_lock);
  record.finished_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  record.status = RunStatus::complete;
  record.expectations = judge_expectations(plan.options.expectations, curves_of(record));
  console.end(record);
  const std::string run_group = writer->finish(record);
  std::printf("  record: %s (%s)\n", plan.options.output.c_str(), run_group.c_str());
  return after_run_saved(record, run_group);
}

}  // namespace
}  // namespace npgpu

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  if (const npgpu::Subcommand* subcommand = npgpu::find_subcommand(args))
    return subcommand->run(std::vector<std::string>(args.begin() + 2, args.end()));
  npgpu::hold_stop_signals();
  MPI_Init(&argc, &argv);
  int code = 0;
  {
    const npgpu::Team team(MPI_COMM_WORLD);
    npgpu::RunGuard guard(team.rank());
    try {
      code = npgpu::run(args, team, guard);
    } catch (const std::exception& error) {
      // A failure mid-run (corrupt data, a failed library call): a peer may be blocked waiting
      // for this rank, so the whole job stops here rather than hanging.
      std::fprintf(stderr, "npgpu: rank %d: %s\n", team.rank(), error.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, npgpu::kExitRunError);
    }
  }
  MPI_Finalize();
  return code;
}
