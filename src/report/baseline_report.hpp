#pragma once
// Runs against a reference (`npgpu report --baseline REF.h5`) and records folded into a fleet
// reference (`npgpu baseline`): which reference run or fleet path judges each run, the refusals
// where none may, and the answer in text and JSON (docs/report-json.md, "baseline").
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "report/baseline.hpp"
#include "results/fleet_reference.hpp"
#include "results/run_data.hpp"

namespace npgpu {

// What REF.h5 holds: runs of a record (they judge the same hosts and GPUs), or a fleet reference
// (it judges nodes of its hardware kind).
struct Reference {
  std::string file;
  std::vector<RunData> runs;
  std::optional<FleetReference> fleet;
};

struct BaselineRun {
  std::string run, label;             // "file:/runs/0001", run_label
  std::string reference;              // "ref.h5:/runs/0002", or "ref.h5 (fleet of 3 records)"
  std::string made_by;                // the npgpu that made the reference
  int method_version = 1;
  std::vector<std::string> shared;    // what its shortfalls share, in words
  std::size_t paths_compared = 0;
};

struct BaselineReport {
  std::string reference;  // the file
  bool fleet = false;
  double least_loss = kLeastLoss;  // the least loss told, by the path judged most widely
  std::vector<BaselineRun> runs;
  std::vector<Shortfall> shortfalls;
};

// A curve's figures at each size, from its trials.
PathFigures curve_figures(const CurveData& curve, TrialsBy by = TrialsBy::fastest);

// A matrix's measured cells ("rank 0 -> rank 1"), with the class of path each crosses.
struct MatrixCell {
  PathFigures figures;
  std::string link;
};
std::vector<MatrixCell> matrix_cells(const MatrixData& m, TrialsBy by = TrialsBy::fastest);

// Each run judged against its reference. UsageError, one line, where a run has none: no run or
// path like it, another way of measuring, another machine kind, other hosts (a run reference).
BaselineReport judge_against(const std::vector<RunData>& runs, const Reference& reference);

// The complete runs folded into one path per label, hardware kind and link (a curve's, or a
// matrix class); `left_out` says which runs were not folded, and why. UsageError where the runs
// were measured in several ways (method versions) or none is complete.
FleetReference fold_fleet(const std::vector<RunData>& runs, std::vector<std::string>& left_out);

std::string baseline_text(const BaselineReport& report);
nlohmann::json baseline_json(const BaselineReport& report);

}  // namespace npgpu
