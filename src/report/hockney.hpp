#pragma once
// Hockney's model of a transfer, t(n) = alpha + n / beta, fitted to a curve's one-way times, and
// the sizes where the curve changes regime (change_points.hpp finds them). Pure functions: no
// I/O, no MPI.
#include <cstddef>
#include <span>
#include <vector>

namespace npgpu {

// t = alpha + gamma x n, gamma = 1 / beta.
struct HockneyLine {
  double alpha = 0, gamma = 0;
  double seconds(double bytes) const { return alpha + gamma * bytes; }
};

// Weighted least squares over points first..last (weights[i - first] for point i), with the sizes
// scaled to the largest so the normal equations stay well conditioned across nine decades of
// sizes. A negative alpha is fitted again through the origin; a time falling with the size has no
// bandwidth term (gamma 0).
HockneyLine weighted_hockney_line(std::span<const double> bytes, std::span<const double> seconds,
                                  std::span<const double> weights, std::size_t first, std::size_t last);

struct HockneyFit {
  double alpha_s = 0;       // the time of an empty transfer: start-up latency
  double beta_B_per_s = 0;  // asymptotic throughput; 0 when the time does not grow with the size
  double rms_relative_residual = 0;    // quality: root mean square of (measured - fit) / measured
  double worst_relative_residual = 0;  // the largest |measured - fit| / measured
  double typical_relative_residual = 0;  // the median |measured - fit| / measured, scaled as a standard deviation
  std::size_t first = 0, last = 0;     // the points fitted, first to last inclusive

  // n1/2 = alpha x beta: the size that reaches half of beta (0 when beta is unknown).
  double half_bytes() const { return alpha_s * beta_B_per_s; }
  double seconds(double bytes) const { return alpha_s + (beta_B_per_s > 0 ? bytes / beta_B_per_s : 0); }
};

// Fits points first..last (at least two) by least squares on relative errors, so a 1 us latency
// counts as much as a 10 ms transfer, with Huber's weights so the odd noisy size does not drag it.
HockneyFit fit_hockney(std::span<const double> bytes, std::span<const double> seconds, std::size_t first,
                       std::size_t last);

// A regime of the curve: sizes first..last and the Hockney line of their fastest trials.
struct CurvePiece {
  std::size_t first = 0, last = 0;
  HockneyLine line;
};

// What happens to the time per transfer at a break: it jumps above what the sizes below predict,
// falls below it (a faster way takes over), or grows at another rate from there (the fits of the
// two sides step by less than kLeastChange at the break and part only away from it).
enum class BreakKind { jump, drop, slope };
const char* break_kind_name(BreakKind kind);

// Where the curve changes regime: the first size of the new one, with the evidence.
struct CurveBreak {
  std::size_t index = 0;  // first point after the break
  double bytes = 0;
  BreakKind kind = BreakKind::slope;
  // The fits of the fastest trials on each side, at this size, and their ratio (after / before).
  double seconds_before = 0, seconds_after = 0, jump = 0;
  double beta_before_B_per_s = 0, beta_after_B_per_s = 0;  // 0: no bandwidth term on that side
  double noise = 0;  // the curve's relative noise it stands above (CurvePieces::noise)
  // Where the piece before it starts and the piece after it ends, and the line before it.
  std::size_t first_before = 0, last_after = 0;
  HockneyLine line_before;
  // Measured again in turn after the sweep (break_checks.hpp), at the size after it that shows its
  // step (index_again): the step there over the line before, in the sweep and measured again (0
  // where it was not measured again), and how far the rounds measured again spread about that
  // step (log, robust).
  std::size_t index_again = 0;
  double bytes_again = 0, step_swept = 0, step_again = 0, noise_again = 0;
  // The round measured again whose step there lies nearest 1 the way step_again lies (or beyond 1
  // the other way): what every round shows.
  double weakest_again = 0;
  // The path's settings say it switches within kSwitchReach of here (set_switches.hpp), and
  // whether the sizes across that setting were measured again (an older record may lack them).
  bool predicted = false, setting_measured_again = false;
  // The sweep's pieces did not part here: the path's settings put a switch here and measuring the
  // sizes across the setting again showed its step (break_checks.hpp). Its kind and jump are that step's.
  bool by_setting = false;
  double setting_bytes = 0;  // by_setting: the setting it stands for
};

// The break between two neighbouring pieces, at the first size of `after`, with the evidence of
// their lines; `noise`, the curve's (CurvePieces::noise).
CurveBreak break_between(const CurvePiece& before, const CurvePiece& after, double noise, std::span<const double> bytes);

// Where the path's settings say it switches, as sizes of one curve (indices): those within
// kSwitchReach of the setting, where a break is probably that switch, and the sizes that measuring
// again compares across it, below and above (set_switches.hpp chooses them).
struct SettingSides {
  double bytes = 0;  // the setting
  std::size_t first_near = 0, last_near = 0;
  std::vector<std::size_t> below, above;
};

struct HockneyAnalysis {
  HockneyFit whole;                   // one fit over every size
  std::vector<HockneyFit> segments;   // the fits between breaks (just `whole` when there is none)
  std::vector<CurveBreak> breaks;
  // Breaks the sweep's pieces show that did not show again when measured again in turn: the
  // machine changed between their two sides, not the path. Never told as breaks.
  std::vector<CurveBreak> withdrawn;
};

// A fit that misses a typical size by more than this does not describe the curve, and its alpha,
// beta and n1/2 are not to be quoted. A typical size, not the rms: a size a burst of machine noise
// slowed is no sign against the model. 20% is twice the 10% jump of a protocol switch.
inline constexpr double kPoorFitResidual = 0.20;
inline bool is_poor(const HockneyFit& fit) { return fit.typical_relative_residual > kPoorFitResidual; }

// The piece with the worst fit (the whole fit when there is no break); nullptr without a fit.
const HockneyFit* worst_segment(const HockneyAnalysis& analysis);

// Sizes ascending, times positive, both the same length; `trials[i]` holds the times per transfer
// of every trial of size i (empty: the curve's time there stands for its one trial). The whole
// fit and the pieces' fits are of `seconds` (the headline); the breaks are found from the trials.
// `rechecked[i]`, where given, holds size i's trials measured again around the breaks after the
// sweep, which decide whether each break is told or withdrawn (break_checks.hpp); `settings`, the
// sizes where the path's settings say it switches, which a break near one must be judged across.
HockneyAnalysis analyse_hockney(std::span<const double> bytes, std::span<const double> seconds,
                                std::span<const std::vector<double>> trials,
                                std::span<const std::vector<double>> rechecked = {},
                                std::span<const SettingSides> settings = {});

}  // namespace npgpu
