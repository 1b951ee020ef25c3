#include "report/baseline_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"
#include "npgpu/version.hpp"
#include "npgpu/words.hpp"
#include "report/report.hpp"

namespace npgpu {
namespace {

std::string run_name(const RunData& run) { return run.file + ":" + run.group; }

std::string fact(const PlacementFacts& facts, const char* name) {
  const auto found = facts.find(name);
  return found == facts.end() ? "" : found->second;
}

std::string gpu_model(const RunData& run) { return run.rank_facts.empty() ? "" : fact(run.rank_facts.front(), "gpu_name"); }

std::vector<std::string> gpu_bus_ids(const RunData& run) {
  std::vector<std::string> ids;
  for (const PlacementFacts& facts : run.rank_facts) ids.push_back(fact(facts, "gpu_pci_bus_id"));
  return ids;
}

std::string hardware(const std::string& cpu, const std::string& gpu) {
  return "CPU '" + cpu + "'" + (gpu.empty() ? "" : ", GPU '" + gpu + "'");
}

// What link a curve crosses, for a fleet: its own rank's path, within one host, or between two.
std::string link_of(const CurveData& curve) {
  if (curve.peer_host.empty()) return "";
  return curve.within_one_host() ? "one host" : "two hosts";
}

PathFigures fleet_figures(const FleetPath& p) {
  PathFigures path{p.label, {}, {}, {}};
  for (std::size_t i = 0; i < p.bytes.size(); ++i)
    path.sizes.push_back({p.bytes[i], p.rate[i], p.spread[i], static_cast<int>(p.records[i])});
  return path;
}

std::string method_refusal(const std::string& reference, const std::string& made_by, int reference_method,
                           const RunData& run) {
  return reference + ": made by " + made_by + " measuring by method " + std::to_string(reference_method) + ", " +
         run_name(run) + " by method " + std::to_string(run.method_version) +
         " (" + run.npgpu_version + "): the way of measuring changed, their figures do not compare";
}

// The run of the reference that judges `run`: alike in label, method, machine kind, hosts and GPUs.
const RunData& reference_run(const RunData& run, const Reference& reference) {
  const std::string label = run_label(run);
  std::vector<const RunData*> alike;
  for (const RunData& candidate : reference.runs)
    if (candidate.status == RunStatus::complete && run_label(candidate) == label) alike.push_back(&candidate);
  if (alike.empty())
    throw UsageError(reference.file + ": no complete run like " + run_name(run) + " (" + label + ") to judge it by");
  const RunData& first = *alike.front();
  if (first.method_version != run.method_version)
    throw UsageError(method_refusal(run_name(first), "npgpu " + first.npgpu_version, first.method_version, run));
  if (first.cpu_model != run.cpu_model || gpu_model(first) != gpu_model(run))
    throw UsageError(run_name(first) + ": another machine kind (" + hardware(first.cpu_model, gpu_model(first)) +
                     ") than " + run_name(run) + " (" + hardware(run.cpu_model, gpu_model(run)) + ")");
  for (const RunData* candidate : alike)
    if (candidate->rank_host == run.rank_host && gpu_bus_ids(*candidate) == gpu_bus_ids(run)) return *candidate;
  throw UsageError(run_name(first) + " ran on hosts " + joined(first.rank_host, ", ") + ", " + run_name(run) + " on " +
                   joined(run.rank_host, ", ") +
                   ": a run judges only the same hosts and GPUs; fold records into a fleet reference "
                   "(npgpu baseline) to judge by hardware");
}

void judge_against_run(const RunData& run, const RunData& ref, BaselineRun& entry, BaselineReport& report,
                       std::vector<PathFigures>& compared) {
  report.least_loss = kLeastLossAgainstOneLaunch;
  for (const CurveData& curve : run.curves)
    for (const CurveData& reference_curve : ref.curves)
      if (reference_curve.name == curve.name) {
        compared.push_back(curve_figures(curve));
        for (Shortfall& s : curve_shortfalls(entry.run, compared.back(), curve_figures(reference_curve), kSizesInARow,
                                             kLeastLossAgainstOneLaunch))
          report.shortfalls.push_back(std::move(s));
      }
  if (!run.matrix || !ref.matrix || run.matrix->rank_host != ref.matrix->rank_host) return;
  std::vector<PathFigures> measured, reference;
  for (MatrixCell& cell : matrix_cells(*run.matrix)) measured.push_back(std::move(cell.figures));
  for (MatrixCell& cell : matrix_cells(*ref.matrix)) reference.push_back(std::move(cell.figures));
  for (Shortfall& s : cell_shortfalls(entry.run, measured, reference, false, kLeastLossAgainstOneLaunch))
    report.shortfalls.push_back(std::move(s));
  compared.insert(compared.end(), measured.begin(), measured.end());
}

// The least loss a fleet path tells: kLeastLoss where enough records stand behind every figure of it
// to show how launches differ, else as against one launch.
double least_loss_of(const FleetPath& path) {
  const bool enough = std::all_of(path.records.begin(), path.records.end(),
                                  [](double records) { return records >= kRecordsToShowHowLaunchesDiffer; });
  return enough ? kLeastLoss : kLeastLossAgainstOneLaunch;
}

void judge_against_fleet(const RunData& run, const FleetReference& fleet, const std::string& file, BaselineRun& entry,
                         BaselineReport& report, std::vector<PathFigures>& compared) {
  const std::string label = run_label(run);
  std::vector<const FleetPath*> alike, same_kind;
  for (const FleetPath& path : fleet.paths)
    if (path.label == label) alike.push_back(&path);
  if (alike.empty()) throw UsageError(file + ": no path like " + run_name(run) + " (" + label + ") to judge it by");
  if (fleet.method_version != run.method_version)
    throw UsageError(method_refusal(file, fleet.made_by, fleet.method_version, run));
  for (const FleetPath* path : alike)
    if (path->cpu_model == run.cpu_model && path->gpu_model == gpu_model(run)) same_kind.push_back(path);
  if (same_kind.empty())
    throw UsageError(file + ": a fleet of another machine kind (" + hardware(alike.front()->cpu_model, alike.front()->gpu_model) +
                     ") than " + run_name(run) + " (" + hardware(run.cpu_model, gpu_model(run)) + ")");
  const auto path_over = [&](const std::string& link) -> const FleetPath* {
    for (const FleetPath* path : same_kind)
      if (path->link == link) return path;
    return nullptr;
  };
  for (const CurveData& curve : run.curves)
    if (const FleetPath* path = path_over(link_of(curve))) {
      compared.push_back(curve_figures(curve));
      const double least_loss = least_loss_of(*path);
      report.least_loss = std::max(report.least_loss, least_loss);
      for (Shortfall& s : curve_shortfalls(entry.run, compared.back(), fleet_figures(*path), kSizesInARow, least_loss))
        report.shortfalls.push_back(std::move(s));
    }
  if (!run.matrix) return;
  std::vector<PathFigures> measured, reference;
  double least_loss = kLeastLoss;
  for (MatrixCell& cell : matrix_cells(*run.matrix))
    if (const FleetPath* path = path_over(cell.link)) {
      measured.push_back(std::move(cell.figures));
      reference.push_back(fleet_figures(*path));
      least_loss = std::max(least_loss, least_loss_of(*path));
    }
  report.least_loss = std::max(report.least_loss, least_loss);
  for (Shortfall& s : cell_shortfalls(entry.run, measured, reference, false, least_loss))
    report.shortfalls.push_back(std::move(s));
  compared.insert(compared.end(), measured.begin(), measured.end());
}

}  // namespace

PathFigures curve_figures(const CurveData& curve, TrialsBy by) {
  PathFigures path{curve.name, {curve.host}, {curve.rank}, {}};
  if (!curve.peer_host.empty()) {
    path.hosts.push_back(curve.peer_host);
    path.ranks.push_back(curve.peer);
  }
  for (std::size_t i = 0; i < curve.bytes.size() && i < curve.trial_seconds.size(); ++i) {
    std::vector<double> rates;
    // The trials measured again after the sweep count too: a size the machine slowed for a moment
    // in the sweep is judged by what it gave measured again (break_checks.hpp).
    for (double t : curve.trial_seconds[i]) rates.push_back(curve.bytes_per_transfer[i] / t);
    if (i < curve.rechecked.size())
      for (double t : curve.rechecked[i]) rates.push_back(curve.bytes_per_transfer[i] / t);
    path.sizes.push_back(figure_of_trials(curve.bytes[i], rates, by));
  }
  return path;
}

std::vector<MatrixCell> matrix_cells(const MatrixData& m, TrialsBy by) {
  std::vector<MatrixCell> cells;
  const int n = m.ranks();
  const std::size_t per_size = static_cast<std::size_t>(n) * n;
  if (m.trial_seconds.size() != m.bytes.size() * per_size) return cells;
  for (int from = 0; from < n; ++from)
    for (int to = 0; to < n; ++to) {
      const int cls = m.cell_class[from * n + to];
      if (cls < 0 || cls >= static_cast<int>(m.classes.size())) continue;
      MatrixCell cell{{"rank " + std::to_string(from) + " -> rank " + std::to_string(to),
                 {m.rank_host[from], m.rank_host[to]}, {from, to}, {}},
                m.classes[cls]};
      for (std::size_t s = 0; s < m.bytes.size(); ++s) {
        std::vector<double> rates;
        for (double t : m.trial_seconds[s * per_size + from * n + to]) rates.push_back(m.bytes[s] / t);
        if (!rates.empty()) cell.figures.sizes.push_back(figure_of_trials(m.bytes[s], rates, by));
      }
      cells.push_back(std::move(cell));
    }
  return cells;
}

BaselineReport judge_against(const std::vector<RunData>& runs, const Reference& reference) {
  BaselineReport report;
  report.reference = reference.file;
  report.fleet = reference.fleet.has_value();
  for (const RunData& run : runs) {
    BaselineRun entry;
    entry.run = run_name(run);
    entry.label = run_label(run);
    std::vector<PathFigures> compared;
    const std::size_t before = report.shortfalls.size();
    if (reference.fleet) {
      entry.reference = reference.file + " (fleet of " + std::to_string(reference.fleet->records.size()) + " records)";
      entry.made_by = reference.fleet->made_by;
      entry.method_version = reference.fleet->method_version;
      judge_against_fleet(run, *reference.fleet, reference.file, entry, report, compared);
    } else {
      const RunData& ref = reference_run(run, reference);
      entry.reference = run_name(ref);
      entry.made_by = ref.npgpu_version.empty() ? "an npgpu that did not say its version" : "npgpu " + ref.npgpu_version;
      entry.method_version = ref.method_version;
      judge_against_run(run, ref, entry, report, compared);
    }
    entry.paths_compared = compared.size();
    entry.shared = shared_shortfalls({report.shortfalls.begin() + static_cast<std::ptrdiff_t>(before), report.shortfalls.end()},
                                     compared);
    report.runs.push_back(std::move(entry));
  }
  return report;
}

FleetReference fold_fleet(const std::vector<RunData>& runs, std::vector<std::string>& left_out) {
  using Key = std::tuple<std::string, std::string, std::string, std::string>;  // label, CPU, GPU, link
  // Each key's fastest rates at each size, and which records gave them.
  std::map<Key, std::map<double, std::pair<std::vector<double>, std::set<std::size_t>>>> folded;
  FleetReference fleet;
  fleet.made_by = std::string("npgpu ") + kVersion;
  std::set<int> methods;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunData& run = runs[r];
    if (run.status != RunStatus::complete) {
      left_out.push_back(run_name(run) + ": " + std::string(status_name(run.status)) + ", not folded");
      continue;
    }
    methods.insert(run.method_version);
    fleet.records.push_back(run_name(run) + " (hosts " + joined(run.rank_host, ", ") + ")");
    const auto add = [&](const std::string& link, const PathFigures& path) {
      auto& sizes = folded[{run_label(run), run.cpu_model, gpu_model(run), link}];
      for (const SizeFigure& figure : path.sizes) {
        sizes[figure.bytes].first.push_back(figure.rate);
        sizes[figure.bytes].second.insert(r);
      }
    };
    for (const CurveData& curve : run.curves) add(link_of(curve), curve_figures(curve));
    if (run.matrix)
      for (const MatrixCell& cell : matrix_cells(*run.matrix)) add(cell.link, cell.figures);
  }
  if (fleet.records.empty()) throw UsageError("no complete run among the records: nothing to fold");
  if (methods.size() > 1)
    throw UsageError("the records were measured by several methods (method versions " +
                     std::to_string(*methods.begin()) + " to " + std::to_string(*methods.rbegin()) +
                     "): fold only records of one");
  fleet.method_version = *methods.begin();
  for (const auto& [key, sizes] : folded) {
    FleetPath& path = fleet.paths.emplace_back();
    std::tie(path.label, path.cpu_model, path.gpu_model, path.link) = key;
    for (const auto& [bytes, rates_and_records] : sizes) {
      const SizeFigure figure = figure_of_records(bytes, rates_and_records.first);
      path.bytes.push_back(bytes);
      path.rate.push_back(figure.rate);
      path.spread.push_back(figure.spread);
      path.records.push_back(static_cast<double>(rates_and_records.second.size()));
    }
  }
  return fleet;
}

std::string baseline_text(const BaselineReport& report) {
  const std::string too_few = report.fleet ? "a fleet of fewer than " + std::to_string(kRecordsToShowHowLaunchesDiffer) +
                                                  " records (fold more)"
                                            : "one launch";
  std::string out = "\nAgainst the " + std::string(report.fleet ? "fleet reference " : "reference ") + report.reference +
                    " (a shortfall: a size under the reference beyond what both records' noise explains" +
                    (report.least_loss < kLeastLossAgainstOneLaunch
                         ? ""
                         : "; by " + ratio_text(1 / report.least_loss) + " at least, since " + too_few +
                               " cannot show how launches differ") +
                    ")\n";
  for (const BaselineRun& run : report.runs) {
    std::size_t count = 0;
    const Shortfall* worst = nullptr;
    for (const Shortfall& s : report.shortfalls)
      if (s.run == run.run) {
        ++count;
        if (worst == nullptr || s.ratio < worst->ratio) worst = &s;
      }
    out += "  " + run.run + " (" + run.label + ") against " + run.reference + ", made by " + run.made_by + ", method " +
           std::to_string(run.method_version) + ": ";
    if (run.paths_compared == 0) {
      out += "no path of it to compare\n";
      continue;
    }
    if (worst == nullptr) {
      out += "no size falls short (" + std::to_string(run.paths_compared) +
             (run.paths_compared == 1 ? " path" : " paths") + " compared)\n";
      continue;
    }
    out += std::to_string(count) + (count == 1 ? " shortfall" : " shortfalls") + " (a path at a size); the worst, " + worst->path + " at " +
           format_bytes(static_cast<std::uint64_t>(worst->bytes)) + ", " +
           format_throughput(worst->measured, Units::decimal) + " against " +
           format_throughput(worst->reference, Units::decimal) + " (" + ratio_text(worst->ratio) + "; short under " +
           ratio_text(worst->bound) + ")\n";
    for (const std::string& line : run.shared) out += "    SHORT: " + line + "\n";
  }
  return out;
}

nlohmann::json baseline_json(const BaselineReport& report) {
  using nlohmann::json;
  json runs = json::array(), shortfalls = json::array();
  for (const BaselineRun& run : report.runs)
    runs.push_back({{"run", run.run},
                    {"label", run.label},
                    {"reference", run.reference},
                    {"reference_made_by", run.made_by},
                    {"method_version", run.method_version},
                    {"paths_compared", run.paths_compared},
                    {"shared", run.shared}});
  for (const Shortfall& s : report.shortfalls)
    shortfalls.push_back({{"run", s.run},
                          {"path", s.path},
                          {"hosts", s.hosts},
                          {"ranks", s.ranks},
                          {"bytes", s.bytes},
                          {"measured_B_per_s", s.measured},
                          {"reference_B_per_s", s.reference},
                          {"ratio", s.ratio},
                          {"bound", s.bound},
                          {"reference_records", s.reference_records}});
  return {{"reference", report.reference},
          {"kind", report.fleet ? "fleet" : "run"},
          {"least_loss", report.least_loss},
          {"runs", runs},
          {"shortfalls", shortfalls},
          {"met", report.shortfalls.empty()}};
}

}  // namespace npgpu
