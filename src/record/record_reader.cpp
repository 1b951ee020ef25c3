#include "record/record_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "record/record_file.hpp"
#include "record/record_lock.hpp"

namespace npgpu {
namespace {

// Each size's trials as time per transfer: trial_seconds[n, max_trials] / (reps x transfers_per_rep),
// NaN past a size's trials.
std::vector<std::vector<double>> read_trials(const RecordFile& file, const std::string& path, std::size_t sizes) {
  const std::vector<double> raw = file.numbers(path + "/trial_seconds"), reps = file.numbers(path + "/reps"),
                            transfers = file.numbers(path + "/transfers_per_rep");
  if (sizes == 0 || raw.size() % sizes != 0 || reps.size() < sizes || transfers.size() < sizes) return {};
  const std::size_t columns = raw.size() / sizes;
  std::vector<std::vector<double>> trials(sizes);
  for (std::size_t i = 0; i < sizes; ++i)
    for (std::size_t j = 0; j < columns; ++j)
      if (const double t = raw[i * columns + j]; t > 0) trials[i].push_back(t / (reps[i] * transfers[i]));
  return trials;
}

CurveData read_curve(const RecordFile& file, const std::string& path, const std::string& name,
                     const std::string& headline) {
  CurveData curve;
  curve.name = name;
  curve.rank = static_cast<int>(file.number(path, "rank"));
  curve.host = file.text(path, "host");
  curve.peer = static_cast<int>(file.number(path, "peer", -1));
  curve.peer_host = file.text(path, "peer_host");
  curve.link_peak = {file.number(path, "link_peak_B_per_s"), file.text(path, "link_peak_how")};
  curve.bytes = file.numbers(path + "/bytes");
  curve.bytes_per_transfer = file.numbers(path + "/bytes_per_transfer");
  if (curve.bytes_per_transfer.size() != curve.bytes.size()) curve.bytes_per_transfer = curve.bytes;
  curve.seconds = file.numbers(path + "/time_" + headline);
  curve.seconds_min = file.numbers(path + "/time_min");
  curve.seconds_max = file.numbers(path + "/time_max");
  curve.tail_p99_seconds = file.numbers(path + "/tail_p99_seconds");
  curve.trials = file.numbers(path + "/trials");
  curve.wall_seconds = file.numbers(path + "/wall_seconds");
  curve.trial_seconds = read_trials(file, path, curve.bytes.size());
  // A size not finished when a run stopped may hold no time: the curve ends before it.
  std::size_t usable = std::min(curve.bytes.size(), curve.seconds.size());
  for (std::size_t i = 0; i < usable; ++i)
    if (!(curve.seconds[i] > 0)) usable = i;
  for (std::vector<double>* column : {&curve.bytes, &curve.bytes_per_transfer, &curve.seconds, &curve.seconds_min,
                                      &curve.seconds_max, &curve.tail_p99_seconds, &curve.trials, &curve.wall_seconds})
    if (column->size() > usable) column->resize(usable);
  if (curve.trial_seconds.size() > usable) curve.trial_seconds.resize(usable);
  // Records written before sizes were measured again have none: their breaks stand as found.
  const std::vector<double> reps = file.numbers(path + "/reps"), transfers = file.numbers(path + "/transfers_per_rep");
  std::vector<double> divisors;
  for (std::size_t i = 0; i < usable && i < reps.size() && i < transfers.size(); ++i) divisors.push_back(reps[i] * transfers[i]);
  curve.rechecked = rechecked_by_size(curve.bytes, divisors, file.numbers(path + "/recheck_bytes"),
                                      file.numbers(path + "/recheck_trial_seconds"));
  return curve;
}

MatrixData read_matrix(const RecordFile& file, const std::string& path) {
  MatrixData matrix;
  matrix.bytes = file.numbers(path + "/bytes");
  // A pattern this npgpu does not know is taken for no stream: no matrix cell of it compares a stream.
  for (const std::string& pattern : file.texts(path + "/pattern"))
    matrix.patterns.push_back(pattern_named(pattern).value_or(Pattern::pingpong));
  matrix.rank_host = file.texts(path + "/rank_host");
  matrix.rank_gpu = file.texts(path + "/rank_gpu");
  matrix.classes = file.texts(path + "/classes");
  for (double c : file.numbers(path + "/cell_class")) matrix.cell_class.push_back(static_cast<int>(c));
  matrix.throughput = file.numbers(path + "/throughput");
  matrix.trial_seconds = read_trials(file, path, matrix.throughput.size());
  matrix.tail_p99_seconds = file.numbers(path + "/tail_p99_seconds");
  matrix.flag_below = file.number(path, "flag_below", 0.8);
  const std::vector<double> size_index = file.numbers(path + "/flagged/size_index"),
                            from = file.numbers(path + "/flagged/from_rank"), to = file.numbers(path + "/flagged/to_rank"),
                            rate = file.numbers(path + "/flagged/throughput"),
                            median = file.numbers(path + "/flagged/class_median");
  for (std::size_t i = 0; i < size_index.size() && i < median.size(); ++i)
    matrix.flagged.push_back({static_cast<std::size_t>(size_index[i]), static_cast<int>(from[i]),
                              static_cast<int>(to[i]), rate[i], median[i]});
  return matrix;
}

std::vector<ExpectationOutcome> read_expectations(const RecordFile& file, const std::string& path) {
  const std::vector<std::string> given = file.texts(path + "/option"), kind = file.texts(path + "/kind"),
                                 curve = file.texts(path + "/curve");
  const std::vector<double> bytes = file.numbers(path + "/bytes"), expected = file.numbers(path + "/expected"),
                            measured = file.numbers(path + "/measured"), met = file.numbers(path + "/met");
  std::vector<ExpectationOutcome> outcomes;
  for (std::size_t i = 0; i < given.size() && i < met.size(); ++i) {
    const Expectation e{kind[i] == "latency" ? ExpectationKind::latency : ExpectationKind::bandwidth,
                        static_cast<std::uint64_t>(bytes[i]), expected[i], given[i]};
    outcomes.push_back({e, curve[i], measured[i], met[i] != 0});
  }
  return outcomes;
}

// "a,b,c" -> {"a", "b", "c"}; "" -> none.
std::vector<std::string> words_listed(const std::string& text) {
  std::vector<std::string> words;
  for (std::size_t at = 0; !text.empty() && at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    words.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return words;
}

std::vector<int> ranks_listed(const std::string& text) {
  std::vector<int> ranks;
  for (const std::string& word : words_listed(text)) ranks.push_back(std::stoi(word));
  return ranks;
}

RunData read_run(const RecordFile& file, const std::string& spec_file, const std::string& group) {
  RunData run;
  run.file = spec_file;
  run.group = group;
  for (auto [field, name] : {std::pair{&run.module, "module"}, {&run.pattern, "pattern"}, {&run.headline, "headline"},
                             {&run.status_reason, "status_reason"},
                             {&run.command_line, "command_line"}, {&run.started_utc, "started_utc"},
                             {&run.concurrency, "concurrency"}, {&run.pairs, "pairs"},
                             {&run.npgpu_version, "npgpu_version"}})
    *field = file.text(group, name);
  run.cpu_model = file.text(group + "/system", "cpu_model");
  // Records from before the attribute measured the first way.
  run.method_version = static_cast<int>(file.number(group, "method_version", 1));
  if (run.headline.empty()) run.headline = "median";
  const std::string status = file.text(group, "status");
  run.status = status.empty() ? RunStatus::complete : status_named(status);  // records from before runs had a status
  run.pairing = run.pairs == "halves"             ? PairingMode::halves
                : run.pairs.starts_with("all")    ? PairingMode::all
                                                  : PairingMode::one_pair;
  run.sampled = run.pairing == PairingMode::all && run.pairs != "all";
  if (const std::string load = group + "/load"; file.has(load)) {
    const std::string role = file.text(load, "role");
    run.load = role.substr(0, role.find(':'));
    run.load_facts = LoadData{file.text(load, "pattern"),
                              file.text(load, "module"),
                              ranks_listed(file.text(load, "ranks")),
                              ranks_listed(file.text(load, "victims")),
                              words_listed(file.text(load, "hosts")),
                              words_listed(file.text(load, "gpus")),
                              file.number(load, "bytes"),
                              file.number(load, "moved_bytes"),
                              file.number(load, "moved_seconds"),
                              words_listed(file.text(load, "machines")),
                              file.text(load, "oversubscribed")};
  }
  run.rank_host = file.texts(group + "/system/rank_host");
  run.mpi_parameters = file.texts(group + "/system/mpi_parameters");
  std::erase(run.mpi_parameters, "");  // none set: one empty string
  for (std::size_t rank = 0; file.has(group + "/system/placement/rank" + std::to_string(rank)); ++rank) {
    const std::string placement = group + "/system/placement/rank" + std::to_string(rank);
    std::map<std::string, std::string>& facts = run.rank_facts.emplace_back();
    for (const std::string& fact : file.attribute_names(placement)) facts[fact] = file.text(placement, fact);
  }
  if (!run.rank_facts.empty()) run.facts = run.rank_facts.front();
  for (const std::string& name : file.members(group + "/curves"))
    run.curves.push_back(read_curve(file, group + "/curves/" + name, name, run.headline));
  if (file.has(group + "/aggregate")) {
    AggregateData aggregate{file.numbers(group + "/aggregate/bytes"), file.numbers(group + "/aggregate/throughput_sum"),
                            file.numbers(group + "/aggregate/throughput_slowest"), {}};
    for (double r : file.numbers(group + "/aggregate/slowest_rank")) aggregate.slowest_rank.push_back(static_cast<int>(r));
    run.aggregate = aggregate;
  }
  if (file.has(group + "/matrix")) run.matrix = read_matrix(file, group + "/matrix");
  run.expectations = read_expectations(file, group + "/expectations");
  return run;
}

// "3", "0003" or "/runs/0003" -> "/runs/0003"; empty when it is none of these.
std::string run_group(std::string run) {
  if (run.rfind("/runs/", 0) == 0) run = run.substr(6);
  if (run.empty() || run.size() > 9 || !std::all_of(run.begin(), run.end(), [](unsigned char c) { return std::isdigit(c); }))
    return {};
  char name[32];
  std::snprintf(name, sizeof name, "/runs/%04lu", std::stoul(run));
  return name;
}

}  // namespace

std::vector<RunData> read_runs(const std::string& spec) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::string path = spec, wanted;
  if (const std::size_t colon = spec.rfind(':'); colon != std::string::npos && !std::filesystem::exists(spec)) {
    path = spec.substr(0, colon);
    wanted = run_group(spec.substr(colon + 1));
    if (wanted.empty())
      throw UsageError(spec + ": '" + spec.substr(colon + 1) + "' is not a run; name one as FILE.h5:/runs/0003 or FILE.h5:3");
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw UsageError(path + ": no such file");
  if (const std::string why = forced_hdf5_locking_fails(path); !why.empty()) throw UsageError(path + ": " + why);
  if (!is_hdf5(path)) throw UsageError(path + ": not an HDF5 file, so not an npgpu record");
  if (!written_by_npgpu(path))
    throw UsageError(path + ": an HDF5 file npgpu did not write (its root has no schema '" + std::string(kRecordSchema) + "')");
  const RecordFile file(path);
  std::vector<std::string> groups;
  for (const std::string& name : file.members("/runs")) groups.push_back("/runs/" + name);
  if (!wanted.empty()) {
    if (std::find(groups.begin(), groups.end(), wanted) == groups.end())
      throw UsageError(spec + ": no run " + wanted + " in " + path + " (it holds " + std::to_string(groups.size()) +
                       (groups.empty() ? " runs)" : ", " + groups.front() + " to " + groups.back() + ")"));
    groups = {wanted};
  }
  if (groups.empty()) throw UsageError(path + ": an npgpu record with no runs in it");
  std::vector<RunData> runs;
  for (const std::string& group : groups) runs.push_back(read_run(file, path, group));
  return runs;
}

}  // namespace npgpu
