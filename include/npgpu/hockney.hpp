#pragma once
// Hockney's model of a transfer, t(n) = alpha + n / beta, fitted to a curve's one-way times, and
// the sizes where the curve leaves it (a protocol switch, such as MPI's eager to rendezvous).
// Pure functions: no I/O, no MPI.
#include <cstddef>
#include <span>
#include <vector>

namespace npgpu {

struct HockneyFit {
  double alpha_s = 0;       // the time of an empty transfer: start-up latency
  double beta_B_per_s = 0;  // asymptotic throughput; 0 when the time does not grow with the size
  double rms_relative_residual = 0;    // quality: root mean square of (measured - fit) / measured
  double worst_relative_residual = 0;  // the largest |measured - fit| / measured
  std::size_t first = 0, last = 0;     // the points fitted, first to last inclusive

  // n1/2 = alpha x beta: the size that reaches half of beta (0 when beta is unknown).
  double half_bytes() const { return alpha_s * beta_B_per_s; }
  double seconds(double bytes) const { return alpha_s + (beta_B_per_s > 0 ? bytes / beta_B_per_s : 0); }
};

// Fits points first..last (at least two) by least squares on relative errors, so a 1 us latency
// counts as much as a 10 ms transfer, with Huber's weights so the odd noisy size does not drag it.
HockneyFit fit_hockney(std::span<const double> bytes, std::span<const double> seconds, std::size_t first,
                       std::size_t last);

// Where the curve leaves the fit of the sizes below: the first size of a new regime.
struct CurveBreak {
  std::size_t index = 0;  // first point after the break
  double bytes = 0;
  double jump = 0;  // measured time there / what the fit of the sizes before the break predicts
  double beta_before_B_per_s = 0, beta_after_B_per_s = 0;
};

struct HockneyAnalysis {
  HockneyFit whole;                   // one fit over every size
  std::vector<HockneyFit> segments;   // the fits between breaks (just `whole` when there is none)
  std::vector<CurveBreak> breaks;
};

// A segment whose fit is worse than kGoodFitResidual is split where two fits explain it at least
// kSplitGain times better, each part keeping kMinSegmentPoints; at most kMaxBreaks breaks. Noise
// alone leaves a fit under kGoodFitResidual, so it never splits a curve.
inline constexpr double kGoodFitResidual = 0.05;
inline constexpr double kSplitGain = 2;
inline constexpr std::size_t kMinSegmentPoints = 4;
inline constexpr std::size_t kMaxBreaks = 4;

// A fit whose rms relative residual is above this does not describe the curve, and its alpha,
// beta and n1/2 are not to be quoted. 20% is four times what plain noise leaves (kGoodFitResidual)
// and twice the 10% jump the report names a protocol switch: such a fit misses a typical size by
// more than the features it is used to find.
inline constexpr double kPoorFitResidual = 0.20;
inline bool is_poor(const HockneyFit& fit) { return fit.rms_relative_residual > kPoorFitResidual; }

// The piece with the worst fit (the whole fit when there is no break); nullptr without a fit.
const HockneyFit* worst_segment(const HockneyAnalysis& analysis);

// Sizes ascending, times positive, both the same length.
HockneyAnalysis analyse_hockney(std::span<const double> bytes, std::span<const double> seconds);

}  // namespace npgpu
