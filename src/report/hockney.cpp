#include "report/hockney.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "report/break_checks.hpp"
#include "report/change_points.hpp"
#include "results/statistics.hpp"

namespace npgpu {
namespace {

std::vector<double> relative_residuals(const HockneyLine& line, std::span<const double> bytes,
                                       std::span<const double> seconds, std::size_t first, std::size_t last) {
  std::vector<double> residuals;
  for (std::size_t i = first; i <= last; ++i) residuals.push_back((seconds[i] - line.seconds(bytes[i])) / seconds[i]);
  return residuals;
}

std::vector<double> relative_weights(std::span<const double> seconds, std::size_t first, std::size_t last) {
  std::vector<double> weights;
  for (std::size_t i = first; i <= last; ++i) weights.push_back(1 / (seconds[i] * seconds[i]));
  return weights;
}

// Halfway (geometrically) between the last size below the break and the first from it: the time
// steps there by kLeastChange or more, it jumped or fell; less, the two lines part only away from
// the break, and the rate changed.
BreakKind kind_of(const HockneyLine& before, const HockneyLine& after, double below, double at) {
  const double halfway = std::sqrt(below * at), step = after.seconds(halfway) / before.seconds(halfway);
  if (step >= kLeastChange) return BreakKind::jump;
  if (step <= 1 / kLeastChange) return BreakKind::drop;
  return BreakKind::slope;
}

double beta_of(const HockneyLine& line) { return line.gamma > 0 ? 1 / line.gamma : 0; }

}  // namespace

HockneyLine weighted_hockney_line(std::span<const double> bytes, std::span<const double> seconds,
                                  std::span<const double> weights, std::size_t first, std::size_t last) {
  const double scale = bytes[last] > 0 ? bytes[last] : 1;
  double sw = 0, sx = 0, st = 0, sxx = 0, sxt = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double w = weights[i - first], x = bytes[i] / scale, t = seconds[i];
    sw += w, sx += w * x, st += w * t, sxx += w * x * x, sxt += w * x * t;
  }
  if (!(sw > 0)) return {};
  HockneyLine line{st / sw, 0};
  const double determinant = sw * sxx - sx * sx;
  if (determinant > 0) {
    line.gamma = (sw * sxt - sx * st) / determinant;
    line.alpha = (st - line.gamma * sx) / sw;
  }
  if (line.alpha < 0 && sxx > 0) line = {0, sxt / sxx};  // a negative latency is no latency
  if (line.gamma < 0) line = {st / sw, 0};                  // time falling with size: no bandwidth term
  line.gamma /= scale;
  return line;
}

HockneyFit fit_hockney(std::span<const double> bytes, std::span<const double> seconds, std::size_t first,
                       std::size_t last) {
  const std::vector<double> base = relative_weights(seconds, first, last);
  std::vector<double> weights = base;
  HockneyLine line;
  // Huber's M-estimator by reweighting: residuals beyond 1.345 robust sigmas count linearly.
  for (int round = 0; round < 20; ++round) {
    line = weighted_hockney_line(bytes, seconds, weights, first, last);
    std::vector<double> deviations = relative_residuals(line, bytes, seconds, first, last);
    for (double& d : deviations) d = std::fabs(d);
    const double limit = 1.345 * 1.4826 * median_of(deviations);
    if (limit <= 0) break;
    for (std::size_t i = 0; i < deviations.size(); ++i)
      weights[i] = base[i] * (deviations[i] <= limit ? 1 : limit / deviations[i]);
  }
  HockneyFit fit;
  fit.first = first;
  fit.last = last;
  fit.alpha_s = line.alpha;
  fit.beta_B_per_s = beta_of(line);
  double squares = 0;
  std::vector<double> deviations;
  for (double r : relative_residuals(line, bytes, seconds, first, last)) {
    squares += r * r;
    deviations.push_back(std::fabs(r));
  }
  fit.worst_relative_residual = *std::max_element(deviations.begin(), deviations.end());
  fit.typical_relative_residual = 1.4826 * median_of(deviations);
  fit.rms_relative_residual = std::sqrt(squares / static_cast<double>(last - first + 1));
  return fit;
}

CurveBreak break_between(const CurvePiece& before, const CurvePiece& after, double noise, std::span<const double> bytes) {
  const std::size_t at = after.first;
  CurveBreak cut;
  cut.index = at;
  cut.bytes = bytes[at];
  cut.seconds_before = before.line.seconds(bytes[at]);
  cut.seconds_after = after.line.seconds(bytes[at]);
  cut.jump = cut.seconds_after / cut.seconds_before;
  cut.kind = kind_of(before.line, after.line, bytes[before.last], bytes[at]);
  cut.beta_before_B_per_s = beta_of(before.line);
  cut.beta_after_B_per_s = beta_of(after.line);
  cut.noise = noise;
  cut.first_before = before.first;
  cut.last_after = after.last;
  cut.line_before = before.line;
  return cut;
}

const char* break_kind_name(BreakKind kind) {
  switch (kind) {
    case BreakKind::jump: return "jump";
    case BreakKind::drop: return "drop";
    case BreakKind::slope: break;
  }
  return "slope";
}

HockneyAnalysis analyse_hockney(std::span<const double> bytes, std::span<const double> seconds,
                                std::span<const std::vector<double>> trials,
                                std::span<const std::vector<double>> rechecked,
                                std::span<const SettingSides> settings) {
  HockneyAnalysis analysis;
  if (bytes.size() < 2 || bytes.size() != seconds.size()) return analysis;
  analysis.whole = fit_hockney(bytes, seconds, 0, bytes.size() - 1);

  const SizeLevels levels = size_levels(bytes, trials_or_times(seconds, trials));
  std::size_t from = 0;
  for (BreakCandidate candidate : break_candidates(bytes, levels, find_pieces(bytes, levels), settings)) {
    CurveBreak& cut = candidate.cut;
    judge_recheck(cut, bytes, levels.fastest, rechecked, candidate.setting);
    if (cut.by_setting && !told_by_setting(cut)) continue;
    if (withdrawn(cut)) {
      analysis.withdrawn.push_back(cut);
      continue;
    }
    analysis.segments.push_back(fit_hockney(bytes, seconds, from, cut.index - 1));
    from = cut.index;
    analysis.breaks.push_back(cut);
  }
  analysis.segments.push_back(fit_hockney(bytes, seconds, from, bytes.size() - 1));
  return analysis;
}

const HockneyFit* worst_segment(const HockneyAnalysis& analysis) {
  const auto by_typical = [](const HockneyFit& a, const HockneyFit& b) {
    return a.typical_relative_residual < b.typical_relative_residual;
  };
  const auto worst = std::max_element(analysis.segments.begin(), analysis.segments.end(), by_typical);
  return worst == analysis.segments.end() ? nullptr : &*worst;
}

}  // namespace npgpu
