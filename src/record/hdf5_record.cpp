#include "record/hdf5_record.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <concepts>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>

#include "record/hdf5_handle.hpp"
#include "record/record_lock.hpp"
#include "npgpu/errors.hpp"
#include "system/system_json.hpp"
#include "npgpu/version.hpp"
#include "npgpu/words.hpp"

namespace npgpu {
namespace fs = std::filesystem;
namespace {

// One attribute of a group's table: text, a whole number (stored as a 64-bit integer) or a double.
struct Attribute {
  Attribute(const char* name, std::string text) : name(name), value(std::move(text)) {}
  template <std::integral Number>
  Attribute(const char* name, Number number) : name(name), value(static_cast<std::int64_t>(number)) {}
  Attribute(const char* name, double number) : name(name), value(number) {}
  const char* name;
  std::variant<std::string, std::int64_t, double> value;
};

// The attributes of one table, in its order.
void attributes(hid_t object, std::initializer_list<Attribute> table) {
  for (const Attribute& entry : table) std::visit([&](const auto& value) { attribute(object, entry.name, value); }, entry.value);
}

void describe(hid_t dataset, const char* units, const char* description) {
  attribute(dataset, "units", std::string(units));
  attribute(dataset, "description", std::string(description));
}

// An N-dimensional dataset of doubles or 64-bit integers.
template <typename Number>
void matrix_dataset(hid_t group, const char* name, const std::vector<Number>& values, const std::vector<hsize_t>& dims,
                    const char* units, const char* description) {
  const hid_t type = std::is_floating_point_v<Number> ? H5T_NATIVE_DOUBLE
                     : std::is_signed_v<Number>       ? H5T_NATIVE_INT64
                                                      : H5T_NATIVE_UINT64;
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose, "make a dataspace");
  Handle set(H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
             std::string("create dataset ") + name);
  if (!values.empty()) check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), std::string("write ") + name);
  describe(set, units, description);
}

// A 1-D dataset of doubles or 64-bit integers.
template <typename Number>
void dataset(hid_t group, const char* name, const std::vector<Number>& values, const char* units,
             const char* description) {
  matrix_dataset(group, name, values, {values.size()}, units, description);
}

void strings(hid_t group, const char* name, const std::vector<std::string>& values, const char* description) {
  Handle type = utf8_string_type();
  const hsize_t dims[1] = {values.size()};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "make a dataspace");
  Handle set(H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
             std::string("create dataset ") + name);
  std::vector<const char*> texts;
  for (const std::string& value : values) texts.push_back(value.c_str());
  if (!texts.empty()) check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()), std::string("write ") + name);
  describe(set, "", description);
}

// A row's trials: a row of max_trials in its dataset, NaN past them.
using Trials = std::span<const double>;

// Whether a column of trials is written when no row has any: trial_alt_seconds only where the
// module has a second timer.
enum class Kept { always, when_any };

// One dataset of a group whose datasets run index for index over the same rows (a curve's sizes,
// a matrix's cells, the ranks, the flagged links, the expectations): its name, units and
// description, and how a row gives its value. A table of them is the group's datasets in the
// order written, so a column is one line and nothing pairs a name with a value by position. The
// names are the schema (docs/hdf5-schema.md) that npgpu report reads records of every version by.
template <typename Row>
struct Column {
  const char* name;
  const char* units;  // "" for text, as every text dataset has
  const char* description;
  std::variant<std::uint64_t (*)(const Row&), std::int64_t (*)(const Row&), double (*)(const Row&),
               std::string (*)(const Row&), Trials (*)(const Row&)>
      value;
  Kept kept = Kept::always;
};

// Writes the columns of `table` over `rows`, a dataset of shape `dims` each (the row count, or a
// matrix's sizes x ranks x ranks); trials add a last dimension of max_trials. Text is 1-D.
template <typename Row, std::size_t N>
void write_columns(hid_t group, const Column<Row> (&table)[N], const std::vector<Row>& rows,
                   const std::vector<hsize_t>& dims, std::size_t max_trials = 0) {
  for (const Column<Row>& column : table)
    std::visit(
        [&](auto value_of) {
          using Value = std::invoke_result_t<decltype(value_of), const Row&>;
          if constexpr (std::is_same_v<Value, Trials>) {
            std::vector<double> raw;
            bool any = false;
            for (const Row& row : rows) {
              const Trials trials = value_of(row);
              any = any || !trials.empty();
              const std::size_t at = raw.size();
              raw.resize(at + max_trials, std::nan(""));
              std::copy(trials.begin(), trials.end(), raw.begin() + at);
            }
            if (!any && column.kept == Kept::when_any) return;
            std::vector<hsize_t> shape = dims;
            shape.push_back(max_trials);
            matrix_dataset(group, column.name, raw, shape, column.units, column.description);
          } else {
            std::vector<Value> values;
            for (const Row& row : rows) values.push_back(value_of(row));
            if constexpr (std::is_same_v<Value, double>)
              if (column.kept == Kept::when_any && std::all_of(values.begin(), values.end(), [](double v) { return std::isnan(v); }))
                return;
            if constexpr (std::is_same_v<Value, std::string>)
              strings(group, column.name, values, column.description);
            else
              matrix_dataset(group, column.name, values, dims, column.units, column.description);
          }
        },
        column.value);
}

constexpr const char* kTimeStatistic = "statistic of the one-way time per transfer over the trials";
constexpr const char* kThroughputOfTime = "bytes_per_transfer divided by that time statistic";
constexpr const char* kTail =
    "99th percentile of the one-way time per transfer over single repetitions timed one by one (runs under load, "
    "small pingpong sizes); NaN where not measured";

// A curve's datasets over its sizes (the sizes measured again follow them).
constexpr Column<SizeResult> kSizeColumns[] = {
    {"bytes", "B", "message size", [](const SizeResult& s) { return s.bytes; }},
    {"reps", "1", "repetitions of the pattern in each trial", [](const SizeResult& s) { return s.reps; }},
    {"trials", "1", "trials kept for this size (the rest of its trial_seconds row is NaN)",
     [](const SizeResult& s) -> std::uint64_t { return s.trial_seconds.size(); }},
    {"transfers_per_rep", "1",
     "transfers in one repetition (pingpong 2, stream and bidir: the window used at this size)",
     [](const SizeResult& s) { return s.shape.transfers_per_rep; }},
    {"bytes_per_transfer", "B", "bytes one transfer counts (bidir: both directions)",
     [](const SizeResult& s) { return s.shape.bytes_per_transfer; }},
    {"trial_seconds", "s",
     "raw time of each trial, all repetitions; time per transfer = trial_seconds / (reps * transfers_per_rep)",
     [](const SizeResult& s) -> Trials { return s.trial_seconds; }},
    {"trial_alt_seconds", "s", "the same trials timed by the module's second timer (alt_timer)",
     [](const SizeResult& s) -> Trials { return s.trial_alt_seconds; }, Kept::when_any},
    {"time_min", "s", kTimeStatistic, [](const SizeResult& s) { return s.time.min; }},
    {"time_median", "s", kTimeStatistic, [](const SizeResult& s) { return s.time.median; }},
    {"time_mean", "s", kTimeStatistic, [](const SizeResult& s) { return s.time.mean; }},
    {"time_max", "s", kTimeStatistic, [](const SizeResult& s) { return s.time.max; }},
    {"time_stddev", "s", kTimeStatistic, [](const SizeResult& s) { return s.time.stddev; }},
    {"throughput_from_time_min", "B/s", kThroughputOfTime, [](const SizeResult& s) { return s.throughput(s.time.min); }},
    {"throughput_from_time_median", "B/s", kThroughputOfTime,
     [](const SizeResult& s) { return s.throughput(s.time.median); }},
    {"throughput_from_time_mean", "B/s", kThroughputOfTime, [](const SizeResult& s) { return s.throughput(s.time.mean); }},
    {"throughput_from_time_max", "B/s", kThroughputOfTime, [](const SizeResult& s) { return s.throughput(s.time.max); }},
    {"precision", "1", "relative standard error of the median time (robust, from the MAD)",
     [](const SizeResult& s) { return s.precision; }},
    {"wall_seconds", "s", "time this size took, warm-up and checks included",
     [](const SizeResult& s) { return s.wall_seconds; }},
    {"tail_p99_seconds", "s", kTail, [](const SizeResult& s) { return s.tail_p99; }, Kept::when_any},
    {"tail_messages", "1", "repetitions timed one by one for tail_p99_seconds; NaN where none were",
     [](const SizeResult& s) { return s.tail_messages > 0 ? static_cast<double>(s.tail_messages) : std::nan(""); },
     Kept::when_any},
};

// A cell of --pairs all as the matrix's columns see it: its measurement and the run's headline
// statistic. A cell without trials was not measured.
struct Cell {
  const SizeResult* result;
  Headline headline;
  bool measured() const { return !result->trial_seconds.empty(); }
};

// The matrix's datasets over its cells, [size][from][to].
constexpr Column<Cell> kCellColumns[] = {
    {"seconds", "s", "headline one-way time per transfer from row rank to column rank; NaN: diagonal or not measured",
     [](const Cell& c) { return c.measured() ? headline_of(c.result->time, c.headline) : std::nan(""); }},
    {"throughput", "B/s", "bytes per transfer over that time",
     [](const Cell& c) { return cell_throughput(*c.result, c.headline); }},
    {"precision", "1", "relative standard error of the median time",
     [](const Cell& c) { return c.measured() ? c.result->precision : std::nan(""); }},
    {"reps", "1", "repetitions in each trial of the cell", [](const Cell& c) { return c.result->reps; }},
    {"transfers_per_rep", "1",
     "transfers in one repetition of the cell (pingpong 2, stream: the window); NaN where not measured",
     [](const Cell& c) { return c.measured() ? c.result->shape.transfers_per_rep : std::nan(""); }},
    {"trial_seconds", "s", "raw time of each trial of each cell, all repetitions; NaN past its trials",
     [](const Cell& c) -> Trials { return c.result->trial_seconds; }},
    {"tail_p99_seconds", "s", kTail, [](const Cell& c) { return c.result->tail_p99; }, Kept::when_any},
};

constexpr Column<FlaggedLink> kFlaggedColumns[] = {
    {"size_index", "1", "which size (index into bytes) the cell is slow at",
     [](const FlaggedLink& f) -> std::uint64_t { return f.size_index; }},
    {"from_rank", "1", "sending rank", [](const FlaggedLink& f) -> std::int64_t { return f.from; }},
    {"to_rank", "1", "receiving rank", [](const FlaggedLink& f) -> std::int64_t { return f.to; }},
    {"throughput", "B/s", "the cell's headline throughput", [](const FlaggedLink& f) { return f.throughput; }},
    {"class_median", "B/s", "median throughput of the measured cells of its class at that size",
     [](const FlaggedLink& f) { return f.class_median; }},
    {"ratio", "1", "throughput / class_median, below flag_below",
     [](const FlaggedLink& f) { return f.throughput / f.class_median; }},
};

constexpr Column<ExpectationOutcome> kExpectationColumns[] = {
    {"option", "", "the expectation as given on the command line",
     [](const ExpectationOutcome& o) { return o.expectation.given; }},
    {"kind", "", "bandwidth (at least expected B/s) or latency (at most expected s)",
     [](const ExpectationOutcome& o) -> std::string {
       return o.expectation.kind == ExpectationKind::bandwidth ? "bandwidth" : "latency";
     }},
    {"curve", "", "the curve judged (a group under curves/)", [](const ExpectationOutcome& o) { return o.curve; }},
    {"bytes", "B", "message size the expectation is about",
     [](const ExpectationOutcome& o) { return o.expectation.bytes; }},
    {"expected", "B/s or s", "the threshold: B/s for bandwidth, s for latency (see kind)",
     [](const ExpectationOutcome& o) { return o.expectation.value; }},
    {"measured", "B/s or s",
     "the curve's headline throughput or one-way time at that size (interpolated between the sizes around it); "
     "NaN: the curve does not reach that size",
     [](const ExpectationOutcome& o) { return o.measured; }},
    {"met", "1", "1: met, 0: not met", [](const ExpectationOutcome& o) -> std::uint64_t { return o.met ? 1 : 0; }},
};

constexpr Column<RankPlacement> kRankColumns[] = {
    {"rank_host", "", "host name of each rank, by rank", [](const RankPlacement& r) { return r.host; }},
    {"rank_cpus", "", "cores each rank was allowed to run on, by rank", [](const RankPlacement& r) { return r.cpus; }},
    {"rank_node_local_rank", "1", "each rank's rank among the ranks of its host, by rank",
     [](const RankPlacement& r) -> std::int64_t { return r.node_local_rank; }},
};

Handle group(hid_t parent, const std::string& name) {
  if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) > 0)
    return Handle(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), H5Gclose, "open group " + name);
  return Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                "create group " + name);
}

void write_system(hid_t run, const SystemInfo& system) {
  Handle g = group(run, "system");
  // Rank 0's host in attributes of their own; every host in info_json.
  const HostFacts& host = host_of(system, 0);
  attributes(g, {
      {"cpu_model", host.topology.cpu_model},
      {"sockets", host.topology.sockets},
      {"cores", host.topology.cores},
      {"hardware_threads", host.topology.hardware_threads},
      {"kernel", host.kernel},
      {"memory_bytes", host.memory_bytes},
      {"last_level_cache_bytes", host.topology.last_level_cache_bytes},
      {"numa_nodes", host.topology.numa_nodes.size()},
      {"gpus", host.gpus.gpus.size()},
      {"cuda_driver", host.gpus.cuda_driver},
      {"cuda_runtime", host.gpus.cuda_runtime},
      {"hwloc_version", host.topology.hwloc_version},
      {"host_count", system.host_count},
      {"mpi_library", system.mpi_library},
      {"mpi_cuda_aware", system.mpi_cuda_aware},
      {"hdf5_version", system.hdf5_version},
      {"info_json", system_json(system).dump()}
  });
  write_columns(g, kRankColumns, system.ranks, {system.ranks.size()});
  std::vector<std::string> parameters;
  for (const auto& [name, value] : system.mpi_parameters) parameters.push_back(name + "=" + value);
  strings(g, "mpi_parameters", parameters, "Open MPI MCA parameters set for the run (OMPI_MCA_*, e.g. btl=tcp,self)");
  Handle placement = group(g, "placement");
  for (std::size_t r = 0; r < system.ranks.size(); ++r) {
    Handle rank = group(placement, "rank" + std::to_string(r));
    attribute(rank, "host", system.ranks[r].host);
    attribute(rank, "cpus", system.ranks[r].cpus);
    for (const auto& [name, value] : system.ranks[r].module_facts) attribute(rank, name.c_str(), value);
  }
}

void write_curve(hid_t curves, const Curve& curve, const RunRecord& record) {
  Handle g = group(curves, curve_name(curve));
  attributes(g, {
      {"rank", curve.rank},
      {"host", curve.host},
      {"variant", curve.variant}
  });
  if (curve.peer >= 0) {
    attribute(g, "peer", curve.peer);
    attribute(g, "peer_host", curve.peer_host);
  }
  attribute(g, "link_peak_B_per_s", curve.link_peak.bytes_per_second);
  attribute(g, "link_peak_how", curve.link_peak.how);
  const CurveSummary summary = summarize_curve(curve, record.options.headline);
  attributes(g, {
      {"summary_latency_s", summary.latency_seconds},
      {"summary_latency_bytes", summary.latency_bytes},
      {"summary_peak_throughput_B_per_s", summary.peak_throughput},
      {"summary_peak_bytes", summary.peak_bytes},
      {"summary_half_peak_bytes", summary.half_peak_bytes}
  });

  write_columns(g, kSizeColumns, curve.sizes, {curve.sizes.size()}, record.options.max_trials);
  if (!curve.recheck_bytes.empty()) {
    dataset(g, "recheck_bytes", curve.recheck_bytes, "B",
            "sizes measured again after the sweep, in turn, around the breaks it shows; in the order measured");
    dataset(g, "recheck_trial_seconds", curve.recheck_trial_seconds, "s",
            "raw time of each trial measured again, all repetitions (those of its size in reps and transfers_per_rep)");
  }
}

// --pairs halves: what the pairs gave together at each size.
void write_aggregate(hid_t run, const RunRecord& r) {
  const PairsAggregate aggregate = aggregate_pairs(r.curves, r.options.headline);
  Handle g = group(run, "aggregate");
  attribute(g, "pairs", static_cast<std::int64_t>(r.curves.size()));
  dataset(g, "bytes", aggregate.bytes, "B", "message size");
  dataset(g, "throughput_sum", aggregate.sum, "B/s", "sum over the pairs of each pair's headline throughput, all at once");
  dataset(g, "throughput_slowest", aggregate.slowest, "B/s", "the slowest pair's headline throughput");
  dataset(g, "slowest_rank", std::vector<std::int64_t>(aggregate.slowest_rank.begin(), aggregate.slowest_rank.end()), "1",
          "timing rank of the slowest pair");
}

// --pairs all: one N x N matrix per size, row = sending rank, column = receiving rank.
void write_matrix(hid_t run, const RunRecord& r) {
  const PairMatrix& m = r.matrix;
  const auto n = static_cast<hsize_t>(m.ranks);
  Handle g = group(run, "matrix");
  attributes(g, {
      {"flag_below", m.flag_below},
      {"latency_cells", m.latency_cells},
      {"sample", r.pairing.sample},
      {"seed", r.pairing.seed}
  });
  std::vector<std::string> patterns;
  for (Pattern p : m.patterns) patterns.emplace_back(pattern_name(p));
  std::vector<Cell> cells;
  for (const std::vector<SizeResult>& size : m.cells)
    for (const SizeResult& cell : size) cells.push_back({&cell, r.options.headline});
  dataset(g, "bytes", m.bytes, "B", "message size of each matrix");
  std::vector<std::uint64_t> again = m.measured_again;
  again.resize(m.bytes.size());
  dataset(g, "measured_again", again, "1",
          "slow cells measured again at each size, whose trials disagreed or lasted under a second (the one with the fastest trial kept)");
  strings(g, "pattern", patterns, "the pattern each size was measured with (pingpong: latency, stream: throughput)");
  write_columns(g, kCellColumns, cells, {m.bytes.size(), n, n}, r.options.max_trials);
  matrix_dataset(g, "cell_class", std::vector<std::int64_t>(m.cell_class.begin(), m.cell_class.end()), {n, n}, "1",
                 "index into classes of the path from row rank to column rank; -1 on the diagonal");
  strings(g, "classes", m.classes, "classes of comparable paths: one host or two, host or GPU buffers");
  strings(g, "rank_host", m.rank_host, "host name of each rank");
  strings(g, "rank_gpu", m.rank_gpu, "GPU of each rank, empty where its messages were host memory");
  Handle flagged = group(g, "flagged");
  write_columns(flagged, kFlaggedColumns, m.flagged, {m.flagged.size()});
}

// --expect-bw, --expect-latency: each expectation against each curve, and whether it was met.
void write_expectations(hid_t run, const RunRecord& r) {
  Handle g = group(run, "expectations");
  const bool met = std::all_of(r.expectations.begin(), r.expectations.end(), [](const ExpectationOutcome& o) { return o.met; });
  attribute(g, "met", static_cast<std::int64_t>(met));
  write_columns(g, kExpectationColumns, r.expectations, {r.expectations.size()});
}

// --load: the load, which of the victims' two runs this is, and what the load moved meanwhile.
void write_load(hid_t run, const LoadFacts& load) {
  Handle g = group(run, "load");
  attribute(g, "pattern", std::string(load_pattern_name(load.plan.pattern)));
  attribute(g, "ranks", joined_ranks(load.plan.ranks, ","));
  attribute(g, "victims", joined_ranks(victims_of(load.plan), ","));
  attribute(g, "module", load.plan.module);
  attribute(g, "bytes", static_cast<std::int64_t>(load.plan.bytes));
  attribute(g, "hosts", joined(load.where.hosts, ","));
  attribute(g, "machines", joined(load.where.machines, ","));
  if (!load.where.oversubscribed.empty()) attribute(g, "oversubscribed", load.where.oversubscribed);
  attribute(g, "role", std::string(load.loaded ? "loaded: measured while the load ran" : "isolated: measured with the load idle"));
  if (!load.loaded) return;
  attribute(g, "moved_bytes", load.moved.bytes);
  attribute(g, "moved_seconds", load.moved.seconds);
  attribute(g, "window", static_cast<std::int64_t>(load.moved.window));
  if (std::all_of(load.moved.gpus.begin(), load.moved.gpus.end(), [](const std::string& gpu) { return gpu.empty(); })) return;
  std::vector<std::string> gpus;
  for (const std::string& gpu : load.moved.gpus) gpus.push_back(gpu.empty() ? "none" : gpu);
  attribute(g, "gpus", joined(gpus, ","));
}

void write_run_group(hid_t file, const std::string& name, const RunRecord& r) {
  Handle runs = group(file, "runs");
  Handle run = group(runs, name);
  const RunOptions& o = r.options;
  attributes(run, {
      {"module", r.module.name},
      {"module_measures", r.module.measures},
      {"pattern", pattern_name(o.pattern)},
      {"headline", headline_name(o.headline)},
      {"command_line", o.command_line},
      {"started_utc", r.started_utc},
      {"finished_utc", r.finished_utc},
      {"status", status_name(r.status)},
      {"status_reason", r.status_reason},
      {"npgpu_version", kVersion},
      {"method_version", kMethodVersion},
      {"timer", o.timer},
      {"timer_description", r.timer_description},
      {"timer_resolution_s", r.timer_resolution},
      {"primary_timer", r.primary_timer},
      {"alt_timer", r.alt_timer},
      {"timing", r.timing},
      {"throughput_meaning", r.throughput_meaning},
      {"buffers", r.buffers},
      {"waits", r.waits},
      {"cache", o.cache == CacheState::cold ? "cold" : "warm"},
      {"schedule", o.schedule.fac2 ? "fac2" : "netpipe"},
      {"perturbation", o.schedule.perturbation},
      {"lower_bytes", o.schedule.lower},
      {"upper_bytes", o.schedule.upper},
      {"trial_time_s", o.calibration.trial_seconds},
      {"min_trials", o.min_trials},
      {"max_trials", o.max_trials},
      {"precision_target", o.precision},
      {"window", o.window},
      {"window_rule", r.window_rule},
      {"record_lock", r.record_lock},
      {"long_repetitions", long_repetitions_text(r.curves, o.calibration.trial_seconds)},
      {"concurrency", o.concurrency == Concurrency::together ? "together" : "alone"},
      {"data_check", r.data_check},
      {"ranks", r.system.ranks.size()},
      {"throughput_units", std::string("B/s (console: ") + (o.units == Units::decimal ? "GB/s = 1e9 B/s)" : "GiB/s = 2^30 B/s)")},
      {"pairs", r.module.layout == Layout::pair ? describe(r.pairing) : std::string()}
  });
  write_system(run, r.system);
  Handle curves = group(run, "curves");
  for (const Curve& curve : r.curves) write_curve(curves, curve, r);
  if (r.module.layout == Layout::pair && r.pairing.mode == PairingMode::halves) write_aggregate(run, r);
  if (r.module.layout == Layout::pair && r.pairing.mode == PairingMode::all) write_matrix(run, r);
  if (!o.expectations.empty()) write_expectations(run, r);
  if (r.load) write_load(run, *r.load);
}

std::string next_run_name(hid_t file) {
  if (H5Lexists(file, "runs", H5P_DEFAULT) <= 0) return "0001";
  Handle runs(H5Gopen2(file, "runs", H5P_DEFAULT), H5Gclose, "open /runs");
  H5G_info_t info{};
  check(H5Gget_info(runs, &info), "read /runs");
  for (hsize_t number = info.nlinks + 1;; ++number) {
    char name[32];
    std::snprintf(name, sizeof name, "%04llu", static_cast<unsigned long long>(number));
    if (H5Lexists(runs, name, H5P_DEFAULT) <= 0) return name;
  }
}

// Copies `path` (when it exists) to a private temporary, lets `add` put one run into it, and
// renames it over `path`: the file at `path` is either the old one or the new one, never half.
template <typename Add>
std::string replace_with_run_added(const std::string& path, Add add) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const RecordLock lock(path, record_locking(path));
  const bool appending = fs::exists(path);
  const std::string temporary = private_name(path, ".tmp");
  try {
    std::string name;
    {
      if (appending) fs::copy_file(path, temporary, fs::copy_options::overwrite_existing);
      Handle file(appending ? H5Fopen(temporary.c_str(), H5F_ACC_RDWR, file_access(temporary))
                            : H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, file_access(temporary)),
                  H5Fclose, (appending ? "open " : "create ") + path);
      if (!appending) {
        attribute(file, "schema", std::string(kRecordSchema));
        attribute(file, "created_by", std::string("npgpu ") + kVersion);
      }
      name = next_run_name(file);
      add(file, name);
      check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush " + path);
    }
    lock.confirm();
    fs::rename(temporary, path);
    return "/runs/" + name;
  } catch (const std::exception& failure) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw RunError(std::string(failure.what()) + " (" + path + " was left as it was)");
  }
}

}  // namespace

bool written_by_npgpu(const std::string& path) {
  const Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, file_access(path)), H5Fclose);
  if (!file.valid() || H5Aexists(file, "schema") <= 0) return false;
  Handle attr(H5Aopen(file, "schema", H5P_DEFAULT), H5Aclose, "open the schema attribute");
  Handle type = utf8_string_type();
  char* text = nullptr;
  if (H5Aread(attr, type, &text) < 0) return false;
  const Hdf5Text schema(text);
  return schema && std::string(schema.get()) == kRecordSchema;
}

void check_output_path(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const fs::path directory = directory_of(path);
  std::error_code error;
  if (!fs::is_directory(directory, error))
    throw UsageError("-o " + path + ": directory '" + directory.string() + "' does not exist; create it or choose another path");
  if (access(directory.c_str(), W_OK) != 0)
    throw UsageError("-o " + path + ": directory '" + directory.string() + "' is not writable");
  if (const std::string why = forced_hdf5_locking_fails(path); !why.empty())
    throw UsageError("-o " + path + ": " + why);
  if (!fs::exists(path, error)) return;
  if (!fs::is_regular_file(path, error))
    throw UsageError("-o " + path + ": exists and is not a regular file; choose a new name or an npgpu HDF5 file");
  if (!is_hdf5(path))
    throw UsageError("-o " + path + ": exists and is not an HDF5 file (left untouched); choose a new name or an HDF5 file to append to");
  if (!written_by_npgpu(path))
    throw UsageError("-o " + path + ": an HDF5 file npgpu did not write (its root has no schema '" + kRecordSchema +
                     "'; left untouched); choose a new name or an npgpu record to append to");
  if (access(path.c_str(), W_OK) != 0) throw UsageError("-o " + path + ": the HDF5 file is not writable");
}

std::string default_output_path(const std::string& module, const std::string& utc_stamp) {
  const std::string stem = "npgpu-" + module + "-" + utc_stamp;
  std::string path = stem + ".h5";
  for (int k = 2; fs::exists(path); ++k) path = stem + "-" + std::to_string(k) + ".h5";
  return path;
}

std::string write_run(const std::string& path, const RunRecord& record) {
  if (fs::exists(path) && !written_by_npgpu(path))
    throw RunError(path + " is not an npgpu record (left as it was)");
  return replace_with_run_added(path, [&](hid_t file, const std::string& name) { write_run_group(file, name, record); });
}

void write_lone_run(const std::string& path, const RunRecord& record) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const std::string temporary = path + ".next";
  try {
    {
      Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, file_access(temporary)), H5Fclose,
                  "create " + path);
      attribute(file, "schema", std::string(kRecordSchema));
      attribute(file, "created_by", std::string("npgpu ") + kVersion);
      write_run_group(file, "0001", record);
    }
    fs::rename(temporary, path);
  } catch (const std::exception& failure) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw RunError(std::string(failure.what()) + " (saving what was measured so far to " + path + ")");
  }
}

std::string adopt_run(const std::string& path, const std::string& lone_run, const std::string& reason) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (!written_by_npgpu(lone_run)) throw RunError(lone_run + " is not a readable npgpu record");
  const Handle source(H5Fopen(lone_run.c_str(), H5F_ACC_RDONLY, file_access(lone_run)), H5Fclose, "open " + lone_run);
  return replace_with_run_added(path, [&](hid_t file, const std::string& name) {
    Handle runs = group(file, "runs");
    check(H5Ocopy(source, "/runs/0001", runs, name.c_str(), H5P_DEFAULT, H5P_DEFAULT), "copy the run of " + lone_run);
    Handle run(H5Gopen2(runs, name.c_str(), H5P_DEFAULT), H5Gclose, "open the adopted run");
    check(H5Adelete(run, "status"), "replace the status");
    check(H5Adelete(run, "status_reason"), "replace the status reason");
    attribute(run, "status", std::string(status_name(RunStatus::failed)));
    attribute(run, "status_reason", reason);
  });
}

}  // namespace npgpu
