#include "npgpu/hockney.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace npgpu {
namespace {

// t = alpha + gamma x n, gamma = 1 / beta.
struct Line {
  double alpha = 0, gamma = 0;
};

// Weighted least squares over points first..last, with the sizes scaled to the largest so that
// the normal equations stay well conditioned across nine decades of sizes.
Line weighted_line(std::span<const double> bytes, std::span<const double> seconds, std::span<const double> weights,
                   std::size_t first, std::size_t last) {
  const double scale = bytes[last] > 0 ? bytes[last] : 1;
  double sw = 0, sx = 0, st = 0, sxx = 0, sxt = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double w = weights[i - first], x = bytes[i] / scale, t = seconds[i];
    sw += w, sx += w * x, st += w * t, sxx += w * x * x, sxt += w * x * t;
  }
  Line line{st / sw, 0};
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

std::vector<double> relative_residuals(const Line& line, std::span<const double> bytes,
                                       std::span<const double> seconds, std::size_t first, std::size_t last) {
  std::vector<double> residuals;
  for (std::size_t i = first; i <= last; ++i)
    residuals.push_back((seconds[i] - line.alpha - line.gamma * bytes[i]) / seconds[i]);
  return residuals;
}

std::vector<double> relative_weights(std::span<const double> seconds, std::size_t first, std::size_t last) {
  std::vector<double> weights;
  for (std::size_t i = first; i <= last; ++i) weights.push_back(1 / (seconds[i] * seconds[i]));
  return weights;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Sum of squared relative residuals of a plain (not reweighted) fit: the cost of one segment.
double segment_cost(std::span<const double> bytes, std::span<const double> seconds, std::size_t first,
                    std::size_t last) {
  const Line line = weighted_line(bytes, seconds, relative_weights(seconds, first, last), first, last);
  double cost = 0;
  for (double r : relative_residuals(line, bytes, seconds, first, last)) cost += r * r;
  return cost;
}

struct Split {
  std::size_t at = 0;  // first point of the second part; 0: no split worth making
  double cost = 0;
};

Split best_split(std::span<const double> bytes, std::span<const double> seconds, std::size_t first,
                 std::size_t last) {
  Split best;
  for (std::size_t at = first + kMinSegmentPoints; at + kMinSegmentPoints <= last + 1; ++at) {
    const double cost = segment_cost(bytes, seconds, first, at - 1) + segment_cost(bytes, seconds, at, last);
    if (best.at == 0 || cost < best.cost) best = {at, cost};
  }
  return best;
}

}  // namespace

HockneyFit fit_hockney(std::span<const double> bytes, std::span<const double> seconds, std::size_t first,
                       std::size_t last) {
  const std::vector<double> base = relative_weights(seconds, first, last);
  std::vector<double> weights = base;
  Line line;
  // Huber's M-estimator by reweighting: residuals beyond 1.345 robust sigmas count linearly.
  for (int round = 0; round < 20; ++round) {
    line = weighted_line(bytes, seconds, weights, first, last);
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
  fit.beta_B_per_s = line.gamma > 0 ? 1 / line.gamma : 0;
  double squares = 0;
  for (double r : relative_residuals(line, bytes, seconds, first, last)) {
    squares += r * r;
    fit.worst_relative_residual = std::max(fit.worst_relative_residual, std::fabs(r));
  }
  fit.rms_relative_residual = std::sqrt(squares / static_cast<double>(last - first + 1));
  return fit;
}

HockneyAnalysis analyse_hockney(std::span<const double> bytes, std::span<const double> seconds) {
  HockneyAnalysis analysis;
  if (bytes.size() < 2 || bytes.size() != seconds.size()) return analysis;
  const std::size_t last = bytes.size() - 1;
  analysis.whole = fit_hockney(bytes, seconds, 0, last);

  // Binary segmentation: split the worst-fitted segment where two fits explain it best, while
  // that pays; a segment that does not pay is left whole.
  struct Segment {
    std::size_t first, last;
    double rms;
    bool settled;
  };
  const auto rms_of = [&](std::size_t a, std::size_t b) {
    return std::sqrt(segment_cost(bytes, seconds, a, b) / static_cast<double>(b - a + 1));
  };
  std::vector<Segment> segments{{0, last, rms_of(0, last), false}};
  while (segments.size() <= kMaxBreaks) {
    Segment* worst = nullptr;
    for (Segment& s : segments)
      if (!s.settled && s.rms > kGoodFitResidual && (worst == nullptr || s.rms > worst->rms)) worst = &s;
    if (worst == nullptr) break;
    const Split split = best_split(bytes, seconds, worst->first, worst->last);
    const double whole_cost = worst->rms * worst->rms * static_cast<double>(worst->last - worst->first + 1);
    if (split.at == 0 || split.cost * kSplitGain > whole_cost) {
      worst->settled = true;
      continue;
    }
    const Segment second{split.at, worst->last, rms_of(split.at, worst->last), false};
    *worst = {worst->first, split.at - 1, rms_of(worst->first, split.at - 1), false};
    segments.push_back(second);
  }
  std::sort(segments.begin(), segments.end(), [](const Segment& a, const Segment& b) { return a.first < b.first; });

  for (const Segment& s : segments) analysis.segments.push_back(fit_hockney(bytes, seconds, s.first, s.last));
  for (std::size_t k = 1; k < analysis.segments.size(); ++k) {
    const HockneyFit& before = analysis.segments[k - 1];
    const std::size_t at = analysis.segments[k].first;
    analysis.breaks.push_back({at, bytes[at], seconds[at] / before.seconds(bytes[at]), before.beta_B_per_s,
                               analysis.segments[k].beta_B_per_s});
  }
  return analysis;
}

const HockneyFit* worst_segment(const HockneyAnalysis& analysis) {
  const auto by_rms = [](const HockneyFit& a, const HockneyFit& b) { return a.rms_relative_residual < b.rms_relative_residual; };
  const auto worst = std::max_element(analysis.segments.begin(), analysis.segments.end(), by_rms);
  return worst == analysis.segments.end() ? nullptr : &*worst;
}

}  // namespace npgpu
