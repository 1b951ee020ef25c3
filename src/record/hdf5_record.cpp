#include "record/hdf5_record.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "record/hdf5_handle.hpp"
#include "record/record_lock.hpp"
#include "npgpu/errors.hpp"
#include "system/system_json.hpp"
#include "npgpu/version.hpp"

namespace npgpu {
namespace fs = std::filesystem;
namespace {

void attribute(hid_t object, const char* name, const std::string& value) {
  Handle type = utf8_string_type();
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "make a scalar space");
  Handle attr(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              std::string("create attribute ") + name);
  const char* text = value.c_str();
  check(H5Awrite(attr, type, &text), std::string("write attribute ") + name);
}

template <typename Number>
void attribute(hid_t object, const char* name, Number value) {
  const hid_t type = std::is_floating_point_v<Number> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "make a scalar space");
  Handle attr(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              std::string("create attribute ") + name);
  if constexpr (std::is_floating_point_v<Number>) {
    const double stored = value;
    check(H5Awrite(attr, type, &stored), std::string("write attribute ") + name);
  } else {
    const std::int64_t stored = static_cast<std::int64_t>(value);
    check(H5Awrite(attr, type, &stored), std::string("write attribute ") + name);
  }
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

// A 1-D (cols == 0) or 2-D dataset of doubles or 64-bit integers.
template <typename Number>
void dataset(hid_t group, const char* name, const std::vector<Number>& values, hsize_t cols, const char* units,
             const char* description) {
  const std::vector<hsize_t> dims = cols ? std::vector<hsize_t>{values.size() / cols, cols}
                                         : std::vector<hsize_t>{values.size()};
  matrix_dataset(group, name, values, dims, units, description);
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
  attribute(g, "cpu_model", host.topology.cpu_model);
  attribute(g, "sockets", host.topology.sockets);
  attribute(g, "cores", host.topology.cores);
  attribute(g, "hardware_threads", host.topology.hardware_threads);
  attribute(g, "kernel", host.kernel);
  attribute(g, "memory_bytes", host.memory_bytes);
  attribute(g, "last_level_cache_bytes", host.topology.last_level_cache_bytes);
  attribute(g, "numa_nodes", static_cast<std::int64_t>(host.topology.numa_nodes.size()));
  attribute(g, "gpus", static_cast<std::int64_t>(host.gpus.gpus.size()));
  attribute(g, "cuda_driver", host.gpus.cuda_driver);
  attribute(g, "cuda_runtime", host.gpus.cuda_runtime);
  attribute(g, "hwloc_version", host.topology.hwloc_version);
  attribute(g, "host_count", system.host_count);
  attribute(g, "mpi_library", system.mpi_library);
  attribute(g, "mpi_cuda_aware", system.mpi_cuda_aware);
  attribute(g, "hdf5_version", system.hdf5_version);
  attribute(g, "info_json", system_json(system).dump());
  std::vector<std::string> hosts, cpus, parameters;
  std::vector<std::int64_t> local_ranks;
  for (const RankPlacement& rank : system.ranks) {
    hosts.push_back(rank.host);
    cpus.push_back(rank.cpus);
    local_ranks.push_back(rank.node_local_rank);
  }
  for (const auto& [name, value] : system.mpi_parameters) parameters.push_back(name + "=" + value);
  strings(g, "rank_host", hosts, "host name of each rank, by rank");
  strings(g, "rank_cpus", cpus, "cores each rank was allowed to run on, by rank");
  dataset(g, "rank_node_local_rank", local_ranks, 0, "1", "each rank's rank among the ranks of its host, by rank");
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
  attribute(g, "rank", curve.rank);
  attribute(g, "host", curve.host);
  attribute(g, "variant", curve.variant);
  if (curve.peer >= 0) {
    attribute(g, "peer", curve.peer);
    attribute(g, "peer_host", curve.peer_host);
  }
  attribute(g, "link_peak_B_per_s", curve.link_peak.bytes_per_second);
  attribute(g, "link_peak_how", curve.link_peak.how);
  const CurveSummary summary = summarize_curve(curve, record.options.headline);
  attribute(g, "summary_latency_s", summary.latency_seconds);
  attribute(g, "summary_latency_bytes", summary.latency_bytes);
  attribute(g, "summary_peak_throughput_B_per_s", summary.peak_throughput);
  attribute(g, "summary_peak_bytes", summary.peak_bytes);
  attribute(g, "summary_half_peak_bytes", summary.half_peak_bytes);

  const std::size_t max_trials = record.options.max_trials;
  std::vector<std::uint64_t> bytes, reps, trials;
  std::vector<double> transfers, bytes_per_transfer, wall, precision;
  std::vector<double> times[5], throughputs[4];
  std::vector<double> raw, raw_alt;
  bool has_alt = false;
  for (const SizeResult& s : curve.sizes) {
    bytes.push_back(s.bytes);
    reps.push_back(s.reps);
    trials.push_back(s.trial_seconds.size());
    transfers.push_back(s.shape.transfers_per_rep);
    bytes_per_transfer.push_back(s.shape.bytes_per_transfer);
    wall.push_back(s.wall_seconds);
    precision.push_back(s.precision);
    const double stats[5] = {s.time.min, s.time.median, s.time.mean, s.time.max, s.time.stddev};
    for (int i = 0; i < 5; ++i) times[i].push_back(stats[i]);
    for (int i = 0; i < 4; ++i) throughputs[i].push_back(s.throughput(stats[i]));
    std::vector<double> row(max_trials, std::nan("")), alt_row(max_trials, std::nan(""));
    std::copy(s.trial_seconds.begin(), s.trial_seconds.end(), row.begin());
    std::copy(s.trial_alt_seconds.begin(), s.trial_alt_seconds.end(), alt_row.begin());
    has_alt = has_alt || !s.trial_alt_seconds.empty();
    raw.insert(raw.end(), row.begin(), row.end());
    raw_alt.insert(raw_alt.end(), alt_row.begin(), alt_row.end());
  }
  dataset(g, "bytes", bytes, 0, "B", "message size");
  dataset(g, "reps", reps, 0, "1", "repetitions of the pattern in each trial");
  dataset(g, "trials", trials, 0, "1", "trials kept for this size (the rest of its trial_seconds row is NaN)");
  dataset(g, "transfers_per_rep", transfers, 0, "1",
          "transfers in one repetition (pingpong 2, stream and bidir: the window used at this size)");
  dataset(g, "bytes_per_transfer", bytes_per_transfer, 0, "B", "bytes one transfer counts (bidir: both directions)");
  dataset(g, "trial_seconds", raw, max_trials, "s",
          "raw time of each trial, all repetitions; time per transfer = trial_seconds / (reps * transfers_per_rep)");
  if (has_alt)
    dataset(g, "trial_alt_seconds", raw_alt, max_trials, "s", "the same trials timed by the module's second timer (alt_timer)");
  const char* stat_names[5] = {"time_min", "time_median", "time_mean", "time_max", "time_stddev"};
  for (int i = 0; i < 5; ++i)
    dataset(g, stat_names[i], times[i], 0, "s", "statistic of the one-way time per transfer over the trials");
  const char* throughput_names[4] = {"throughput_from_time_min", "throughput_from_time_median",
                                     "throughput_from_time_mean", "throughput_from_time_max"};
  for (int i = 0; i < 4; ++i)
    dataset(g, throughput_names[i], throughputs[i], 0, "B/s", "bytes_per_transfer divided by that time statistic");
  dataset(g, "precision", precision, 0, "1", "relative standard error of the median time (robust, from the MAD)");
  dataset(g, "wall_seconds", wall, 0, "s", "time this size took, warm-up and checks included");
  if (!curve.recheck_bytes.empty()) {
    dataset(g, "recheck_bytes", curve.recheck_bytes, 0, "B",
            "sizes measured again after the sweep, in turn, around the breaks it shows; in the order measured");
    dataset(g, "recheck_trial_seconds", curve.recheck_trial_seconds, 0, "s",
            "raw time of each trial measured again, all repetitions (those of its size in reps and transfers_per_rep)");
  }
}

// --pairs halves: what the pairs gave together at each size.
void write_aggregate(hid_t run, const RunRecord& r) {
  const PairsAggregate aggregate = aggregate_pairs(r.curves, r.options.headline);
  Handle g = group(run, "aggregate");
  attribute(g, "pairs", static_cast<std::int64_t>(r.curves.size()));
  dataset(g, "bytes", aggregate.bytes, 0, "B", "message size");
  dataset(g, "throughput_sum", aggregate.sum, 0, "B/s", "sum over the pairs of each pair's headline throughput, all at once");
  dataset(g, "throughput_slowest", aggregate.slowest, 0, "B/s", "the slowest pair's headline throughput");
  dataset(g, "slowest_rank", std::vector<std::int64_t>(aggregate.slowest_rank.begin(), aggregate.slowest_rank.end()), 0,
          "1", "timing rank of the slowest pair");
}

// --pairs all: one N x N matrix per size, row = sending rank, column = receiving rank.
void write_matrix(hid_t run, const RunRecord& r) {
  const PairMatrix& m = r.matrix;
  const auto n = static_cast<hsize_t>(m.ranks);
  const std::size_t max_trials = r.options.max_trials;
  Handle g = group(run, "matrix");
  attribute(g, "flag_below", m.flag_below);
  attribute(g, "latency_cells", m.latency_cells);
  attribute(g, "sample", r.pairing.sample);
  attribute(g, "seed", r.pairing.seed);
  std::vector<std::string> patterns;
  for (Pattern p : m.patterns) patterns.emplace_back(pattern_name(p));
  std::vector<double> seconds, throughput, precision, raw, transfers;
  std::vector<std::uint64_t> reps;
  for (const std::vector<SizeResult>& cells : m.cells)
    for (const SizeResult& cell : cells) {
      const bool measured = !cell.trial_seconds.empty();
      const double headline = measured ? headline_of(cell.time, r.options.headline) : std::nan("");
      seconds.push_back(headline);
      throughput.push_back(cell_throughput(cell, r.options.headline));
      precision.push_back(measured ? cell.precision : std::nan(""));
      reps.push_back(cell.reps);
      transfers.push_back(measured ? cell.shape.transfers_per_rep : std::nan(""));
      std::vector<double> row(max_trials, std::nan(""));
      std::copy(cell.trial_seconds.begin(), cell.trial_seconds.end(), row.begin());
      raw.insert(raw.end(), row.begin(), row.end());
    }
  dataset(g, "bytes", m.bytes, 0, "B", "message size of each matrix");
  std::vector<std::uint64_t> again = m.measured_again;
  again.resize(m.bytes.size());
  dataset(g, "measured_again", again, 0, "1",
          "slow cells measured again at each size, whose trials disagreed or lasted under a second (the one with the fastest trial kept)");
  strings(g, "pattern", patterns, "the pattern each size was measured with (pingpong: latency, stream: throughput)");
  const std::vector<hsize_t> cube{m.bytes.size(), n, n};
  matrix_dataset(g, "seconds", seconds, cube, "s", "headline one-way time per transfer from row rank to column rank; NaN: diagonal or not measured");
  matrix_dataset(g, "throughput", throughput, cube, "B/s", "bytes per transfer over that time");
  matrix_dataset(g, "precision", precision, cube, "1", "relative standard error of the median time");
  matrix_dataset(g, "reps", reps, cube, "1", "repetitions in each trial of the cell");
  matrix_dataset(g, "transfers_per_rep", transfers, cube, "1",
                 "transfers in one repetition of the cell (pingpong 2, stream: the window); NaN where not measured");
  matrix_dataset(g, "trial_seconds", raw, {m.bytes.size(), n, n, max_trials}, "s",
                 "raw time of each trial of each cell, all repetitions; NaN past its trials");
  matrix_dataset(g, "cell_class", std::vector<std::int64_t>(m.cell_class.begin(), m.cell_class.end()), {n, n}, "1",
                 "index into classes of the path from row rank to column rank; -1 on the diagonal");
  strings(g, "classes", m.classes, "classes of comparable paths: one host or two, host or GPU buffers");
  strings(g, "rank_host", m.rank_host, "host name of each rank");
  strings(g, "rank_gpu", m.rank_gpu, "GPU of each rank, empty where its messages were host memory");
  Handle flagged = group(g, "flagged");
  std::vector<std::uint64_t> size_index;
  std::vector<std::int64_t> from, to;
  std::vector<double> rate, median, ratio;
  for (const FlaggedLink& link : m.flagged) {
    size_index.push_back(link.size_index);
    from.push_back(link.from);
    to.push_back(link.to);
    rate.push_back(link.throughput);
    median.push_back(link.class_median);
    ratio.push_back(link.throughput / link.class_median);
  }
  dataset(flagged, "size_index", size_index, 0, "1", "which size (index into bytes) the cell is slow at");
  dataset(flagged, "from_rank", from, 0, "1", "sending rank");
  dataset(flagged, "to_rank", to, 0, "1", "receiving rank");
  dataset(flagged, "throughput", rate, 0, "B/s", "the cell's headline throughput");
  dataset(flagged, "class_median", median, 0, "B/s", "median throughput of the measured cells of its class at that size");
  dataset(flagged, "ratio", ratio, 0, "1", "throughput / class_median, below flag_below");
}

// --expect-bw, --expect-latency: each expectation against each curve, and whether it was met.
void write_expectations(hid_t run, const RunRecord& r) {
  Handle g = group(run, "expectations");
  std::vector<std::string> given, kind, curve;
  std::vector<std::uint64_t> bytes, met;
  std::vector<double> expected, measured;
  for (const ExpectationOutcome& o : r.expectations) {
    given.push_back(o.expectation.given);
    kind.push_back(o.expectation.kind == ExpectationKind::bandwidth ? "bandwidth" : "latency");
    curve.push_back(o.curve);
    bytes.push_back(o.expectation.bytes);
    expected.push_back(o.expectation.value);
    measured.push_back(o.measured);
    met.push_back(o.met ? 1 : 0);
  }
  attribute(g, "met", static_cast<std::int64_t>(std::count(met.begin(), met.end(), 1u) == std::ssize(met)));
  strings(g, "option", given, "the expectation as given on the command line");
  strings(g, "kind", kind, "bandwidth (at least expected B/s) or latency (at most expected s)");
  strings(g, "curve", curve, "the curve judged (a group under curves/)");
  dataset(g, "bytes", bytes, 0, "B", "message size the expectation is about");
  dataset(g, "expected", expected, 0, "B/s or s", "the threshold: B/s for bandwidth, s for latency (see kind)");
  dataset(g, "measured", measured, 0, "B/s or s",
          "the curve's headline throughput or one-way time at that size (interpolated between the sizes around it); "
          "NaN: the curve does not reach that size");
  dataset(g, "met", met, 0, "1", "1: met, 0: not met");
}

void write_run_group(hid_t file, const std::string& name, const RunRecord& r) {
  Handle runs = group(file, "runs");
  Handle run = group(runs, name);
  const RunOptions& o = r.options;
  attribute(run, "module", r.module.name);
  attribute(run, "module_measures", r.module.measures);
  attribute(run, "pattern", std::string(pattern_name(o.pattern)));
  attribute(run, "headline", std::string(headline_name(o.headline)));
  attribute(run, "command_line", o.command_line);
  attribute(run, "started_utc", r.started_utc);
  attribute(run, "finished_utc", r.finished_utc);
  attribute(run, "status", r.status);
  attribute(run, "status_reason", r.status_reason);
  attribute(run, "npgpu_version", std::string(kVersion));
  attribute(run, "timer", o.timer);
  attribute(run, "timer_description", r.timer_description);
  attribute(run, "timer_resolution_s", r.timer_resolution);
  attribute(run, "primary_timer", r.primary_timer);
  attribute(run, "alt_timer", r.alt_timer);
  attribute(run, "timing", r.timing);
  attribute(run, "throughput_meaning", r.throughput_meaning);
  attribute(run, "buffers", r.buffers);
  attribute(run, "waits", r.waits);
  attribute(run, "cache", std::string(o.cache == CacheState::cold ? "cold" : "warm"));
  attribute(run, "schedule", std::string(o.schedule.fac2 ? "fac2" : "netpipe"));
  attribute(run, "perturbation", o.schedule.perturbation);
  attribute(run, "lower_bytes", o.schedule.lower);
  attribute(run, "upper_bytes", o.schedule.upper);
  attribute(run, "trial_time_s", o.calibration.trial_seconds);
  attribute(run, "min_trials", o.min_trials);
  attribute(run, "max_trials", o.max_trials);
  attribute(run, "precision_target", o.precision);
  attribute(run, "window", o.window);
  attribute(run, "window_rule", r.window_rule);
  attribute(run, "record_lock", r.record_lock);
  attribute(run, "long_repetitions", long_repetitions_text(r.curves, o.calibration.trial_seconds));
  attribute(run, "concurrency", std::string(o.concurrency == Concurrency::together ? "together" : "alone"));
  attribute(run, "data_check", r.data_check);
  attribute(run, "ranks", static_cast<std::int64_t>(r.system.ranks.size()));
  attribute(run, "throughput_units", std::string("B/s (console: ") + (o.units == Units::decimal ? "GB/s = 1e9 B/s)" : "GiB/s = 2^30 B/s)"));
  attribute(run, "pairs", r.module.layout == Layout::pair ? describe(r.pairing) : std::string());
  write_system(run, r.system);
  Handle curves = group(run, "curves");
  for (const Curve& curve : r.curves) write_curve(curves, curve, r);
  if (r.module.layout == Layout::pair && r.pairing.mode == PairingMode::halves) write_aggregate(run, r);
  if (r.module.layout == Layout::pair && r.pairing.mode == PairingMode::all) write_matrix(run, r);
  if (!o.expectations.empty()) write_expectations(run, r);
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
    attribute(run, "status", std::string("failed"));
    attribute(run, "status_reason", reason);
  });
}

}  // namespace npgpu
