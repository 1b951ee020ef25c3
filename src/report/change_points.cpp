#include "report/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "results/statistics.hpp"

namespace npgpu {
namespace {

// No size is known better than this (relative): timers and clocks jitter by that much.
constexpr double kNoiseFloor = 1e-3;
// Rounds of Huber's weights bring a piece's line near the sizes that agree, before the rounds
// that set the disturbed ones aside.
constexpr int kHuberRounds = 4, kRounds = 12;

// How far each size strays from the straight line (log time against log size) through its two
// neighbours, scaled to one size's noise and taken robustly (the MAD), so that a switch or a
// disturbed size moves it little. NetPIPE's n-3, n, n+3 put a close neighbour beside every size,
// where the curve's own bend is negligible.
double neighbour_scatter(std::span<const double> bytes, const std::vector<double>& fastest) {
  std::vector<double> strays;
  for (std::size_t i = 1; i + 1 < bytes.size(); ++i) {
    const double x0 = std::log(bytes[i - 1]), x = std::log(bytes[i]), x1 = std::log(bytes[i + 1]);
    if (!(x1 > x0)) continue;
    const double w = (x - x0) / (x1 - x0);
    const double line = (1 - w) * std::log(fastest[i - 1]) + w * std::log(fastest[i + 1]);
    strays.push_back((std::log(fastest[i]) - line) / std::sqrt(1 + w * w + (1 - w) * (1 - w)));
  }
  const double centre = median_of(strays);
  for (double& s : strays) s = std::fabs(s - centre);
  return 1.4826 * median_of(strays);
}

// What a size `z` noise scales off a fit costs: squared, up to kDisturbedScales^2. Both ways:
// other work slows a size, and on a virtual machine the two ranks may share a core's caches for a
// while and run faster than they otherwise do.
double size_cost(double z) { return std::min(z * z, kDisturbedScales * kDisturbedScales); }

struct PieceFit {
  HockneyLine line;
  double cost = 0;
};

// One piece's line through the fastest trials of sizes first..last, by reweighting: Huber's
// weights first, then the sizes beyond kDisturbedScales set aside until the set stops changing.
// At most half are set aside (the half furthest off), so a piece never hangs on a few sizes.
PieceFit fit_piece(std::span<const double> bytes, const SizeLevels& levels, std::size_t first, std::size_t last) {
  const std::span<const double> fastest(levels.fastest);
  const std::size_t count = last - first + 1, middle = (count - 1) / 2;
  std::vector<double> base;
  for (std::size_t i = first; i <= last; ++i)
    base.push_back(1 / (fastest[i] * fastest[i] * levels.noise[i] * levels.noise[i]));
  const auto z_of = [&](const HockneyLine& line, std::size_t i) {
    return (fastest[i] - line.seconds(bytes[i])) / fastest[i] / levels.noise[i];
  };
  std::vector<double> weights = base, z(count);
  HockneyLine line = weighted_hockney_line(bytes, fastest, weights, first, last);
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t i = first; i <= last; ++i) z[i - first] = std::fabs(z_of(line, i));
    std::vector<double> sorted = z;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(middle), sorted.end());
    const double keep_within = std::max(kDisturbedScales, sorted[middle]);
    bool changed = round < kHuberRounds;
    for (std::size_t k = 0; k < count; ++k) {
      const double factor = round < kHuberRounds ? (z[k] <= 1.345 ? 1 : 1.345 / z[k]) : (z[k] <= keep_within ? 1 : 0);
      changed = changed || (weights[k] > 0) != (factor > 0);
      weights[k] = base[k] * factor;
    }
    if (!changed) break;
    line = weighted_hockney_line(bytes, fastest, weights, first, last);
  }
  PieceFit fit{line, 0};
  for (std::size_t i = first; i <= last; ++i) fit.cost += size_cost(z_of(line, i));
  return fit;
}

// Optimal partitioning (Jackson et al. 2005) of sizes 0..n-1 into up to kSearchBreaks + 1 pieces
// of at least kMinPiecePoints: best_[k][e] is the least cost of sizes 0..e in k + 1 pieces, and
// start_[k][e] where its last piece starts.
class Partitions {
 public:
  Partitions(std::span<const double> bytes, const SizeLevels& levels)
      : bytes_(bytes), levels_(levels), n_(bytes.size()), cost_(n_ * n_, kNone) {
    for (std::size_t first = 0; first < n_; ++first)
      for (std::size_t last = first + kMinPiecePoints - 1; last < n_; ++last)
        cost_[first * n_ + last] = fit_piece(bytes, levels, first, last).cost;
    best_.assign(kSearchBreaks + 1, std::vector<double>(n_, kNone));
    start_.assign(kSearchBreaks + 1, std::vector<std::size_t>(n_, 0));
    for (std::size_t last = 0; last < n_; ++last) best_[0][last] = cost_[last];
    for (std::size_t k = 1; k <= kSearchBreaks; ++k)
      for (std::size_t last = 0; last < n_; ++last)
        for (std::size_t first = k * kMinPiecePoints; first + kMinPiecePoints <= last + 1; ++first) {
          const double total = best_[k - 1][first - 1] + cost_[first * n_ + last];
          if (total < best_[k][last]) best_[k][last] = total, start_[k][last] = first;
        }
  }

  // The most breaks the curve has room for (0 for a curve too short to split).
  std::size_t most_breaks() const {
    std::size_t k = 0;
    while (k < kSearchBreaks && best_[k + 1].back() < kNone) ++k;
    return k;
  }

  // The first size of each piece of the best partition with `breaks` breaks.
  std::vector<std::size_t> firsts(std::size_t breaks) const {
    std::vector<std::size_t> firsts{0};
    for (std::size_t k = breaks, last = n_ - 1; k > 0; last = start_[k][last] - 1, --k)
      firsts.insert(firsts.begin() + 1, start_[k][last]);
    return firsts;
  }

  // The same for the number of breaks that costs least with `penalty` for each.
  std::vector<std::size_t> firsts_paying(double penalty) const {
    const auto total = [&](std::size_t k) { return best_[k].back() + static_cast<double>(k) * penalty; };
    std::size_t breaks = 0;
    for (std::size_t k = 1; k <= kSearchBreaks; ++k)
      if (total(k) < total(breaks)) breaks = k;
    return firsts(breaks);
  }

  std::vector<CurvePiece> pieces(const std::vector<std::size_t>& firsts) const {
    std::vector<CurvePiece> pieces;
    for (std::size_t p = 0; p < firsts.size(); ++p) {
      const std::size_t last = p + 1 < firsts.size() ? firsts[p + 1] - 1 : n_ - 1;
      pieces.push_back({firsts[p], last, fit_piece(bytes_, levels_, firsts[p], last).line});
    }
    return pieces;
  }

 private:
  static constexpr double kNone = std::numeric_limits<double>::infinity();
  std::span<const double> bytes_;
  const SizeLevels& levels_;
  std::size_t n_;
  std::vector<double> cost_;  // [first * n + last]: one piece over those sizes
  std::vector<std::vector<double>> best_;
  std::vector<std::vector<std::size_t>> start_;
};

// How far pieces miss their typical size (relative; robust, so disturbed sizes count little).
double misfit(std::span<const double> bytes, const SizeLevels& levels, std::span<const CurvePiece> pieces) {
  std::vector<double> misses;
  for (const CurvePiece& piece : pieces)
    for (std::size_t i = piece.first; i <= piece.last; ++i)
      misses.push_back(std::fabs(levels.fastest[i] - piece.line.seconds(bytes[i])) / levels.fastest[i]);
  return 1.4826 * median_of(misses);
}

// How far a piece misses the sizes its fit keeps (relative, robust): those beyond kDisturbedScales
// noise scales, or the median size's distance if larger, are set aside as fit_piece sets them aside.
double kept_misfit(std::span<const double> bytes, const SizeLevels& levels, const CurvePiece& piece) {
  std::vector<double> misses, z;
  for (std::size_t i = piece.first; i <= piece.last; ++i) {
    misses.push_back(std::fabs(levels.fastest[i] - piece.line.seconds(bytes[i])) / levels.fastest[i]);
    z.push_back(misses.back() / levels.noise[i]);
  }
  const double keep_within = std::max(kDisturbedScales, median_of(z));
  std::vector<double> kept;
  for (std::size_t k = 0; k < misses.size(); ++k)
    if (z[k] <= keep_within) kept.push_back(misses[k]);
  return 1.4826 * median_of(kept);
}

// How far two pieces' lines part at a size, as the log of their ratio.
double parting(const CurvePiece& a, const CurvePiece& b, double bytes) {
  return std::fabs(std::log(b.line.seconds(bytes) / a.line.seconds(bytes)));
}

// How far two neighbouring pieces part within a factor kNearby of the size between them (a jump
// there, or lines that diverge close by), in units of the curve's noise or of what either piece
// misses the sizes its fit keeps by, whichever is larger; 0 when they part by less than
// kLeastTold. Evidence summed over long pieces is not enough: noise that lasts over many sizes
// adds up too, and so does a bend. The sizes a fit sets aside do not count: a short piece past a
// switch whose first sizes pay a one-off cost misses those by far, which says nothing of the switch.
double prominence(std::span<const double> bytes, const SizeLevels& levels, const CurvePiece& before,
                  const CurvePiece& after, double noise) {
  const double at = bytes[after.first];
  double most = 0;
  for (std::size_t i = before.first; i <= after.last; ++i)
    if (bytes[i] * kNearby >= at && bytes[i] <= at * kNearby) most = std::max(most, parting(before, after, bytes[i]));
  if (most < std::log(kLeastTold)) return 0;
  return most / std::max({noise, kept_misfit(bytes, levels, before), kept_misfit(bytes, levels, after)});
}

// A piece that stands off the two beside it on one side at both of its ends, by more than twice
// as far as those two part there, is a stretch of sizes the machine slowed or sped up for a
// while, or the first sizes past a switch that pay a one-off cost (Open MPI's shared memory took
// 40 us at 32 KiB and 14 us at 48 KiB past an eager limit of 32 KiB), not a regime: a protocol does
// not leave a line and come back to it. (Twice their parting, not the noise: their lines are
// extrapolated across the stretch.) A stretch narrower than a factor kNearby joins the piece after
// it, whose line its sizes do not move, so the break where it starts is judged between the pieces
// on its two sides: none where they are one regime, the switch where they are not. A wider one
// would have their lines judged far from their own sizes: the breaks at both its ends are marked
// as passing, never told.
std::vector<bool> set_stretches_aside(std::span<const double> bytes, std::vector<CurvePiece>& pieces) {
  constexpr double kStandsOff = 2;
  const auto off = [](const CurvePiece& stretch, const CurvePiece& other, double at) {
    return std::log(stretch.line.seconds(at) / other.line.seconds(at));
  };
  std::vector<bool> passing(pieces.size(), false);
  for (std::size_t m = pieces.size() < 3 ? 0 : pieces.size() - 2; m >= 1; --m) {
    const CurvePiece &before = pieces[m - 1], &stretch = pieces[m], &after = pieces[m + 1];
    const double side = off(stretch, before, bytes[stretch.first]) > 0 ? 1 : -1;
    bool stands_off = true;
    for (double at : {bytes[stretch.first], bytes[stretch.last]}) {
      const double apart = kStandsOff * parting(before, after, at);
      stands_off = stands_off && side * off(stretch, before, at) > apart && side * off(stretch, after, at) > apart;
    }
    if (!stands_off) continue;
    if (bytes[stretch.last] > kNearby * bytes[stretch.first]) {
      passing[m] = passing[m + 1] = true;
      continue;
    }
    pieces[m + 1].first = stretch.first;
    pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(m));
    passing.erase(passing.begin() + static_cast<std::ptrdiff_t>(m));
  }
  return passing;
}

// A size about kDisturbedScales off both of the pieces beside a break costs alike in either, and
// the partition may leave it on the wrong side of the break (a switch named one size late). Each
// break moves until the sizes beside it are nearer their own piece's line than the other's, each
// piece keeping kMinPiecePoints; the pieces it moved are fitted again.
void settle_breaks(std::span<const double> bytes, const SizeLevels& levels, std::vector<CurvePiece>& pieces) {
  const auto off = [&](const CurvePiece& piece, std::size_t i) {
    return std::fabs(std::log(levels.fastest[i] / piece.line.seconds(bytes[i])));
  };
  for (std::size_t b = 1; b < pieces.size(); ++b) {
    CurvePiece &before = pieces[b - 1], &after = pieces[b];
    bool moved = false;
    while (before.last - before.first + 1 > kMinPiecePoints && off(after, before.last) < off(before, before.last))
      --before.last, --after.first, moved = true;
    while (!moved && after.last - after.first + 1 > kMinPiecePoints && off(before, after.first) < off(after, after.first))
      ++before.last, ++after.first, moved = true;
    if (!moved) continue;
    before.line = fit_piece(bytes, levels, before.first, before.last).line;
    after.line = fit_piece(bytes, levels, after.first, after.last).line;
  }
}

}  // namespace

std::vector<std::vector<double>> trials_or_times(std::span<const double> seconds,
                                                 std::span<const std::vector<double>> trials) {
  std::vector<std::vector<double>> kept(trials.begin(), trials.end());
  if (kept.size() != seconds.size()) kept.assign(seconds.size(), {});
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (kept[i].empty()) kept[i] = {seconds[i]};
  return kept;
}

HockneyLine piece_line(std::span<const double> bytes, const SizeLevels& levels, std::size_t first, std::size_t last) {
  return fit_piece(bytes, levels, first, last).line;
}

SizeLevels size_levels(std::span<const double> bytes, std::span<const std::vector<double>> trials) {
  SizeLevels levels;
  std::vector<double> own;
  for (const std::vector<double>& size : trials) {
    std::vector<double> sorted = size;
    std::sort(sorted.begin(), sorted.end());
    levels.fastest.push_back(sorted[0]);
    own.push_back(sorted.size() > 1 ? (sorted[1] - sorted[0]) / sorted[0] : 0);
  }
  levels.scatter = neighbour_scatter(bytes, levels.fastest);
  for (double spread : own) levels.noise.push_back(std::max({spread, levels.scatter, kNoiseFloor}));
  return levels;
}

CurvePieces find_pieces(std::span<const double> bytes, const SizeLevels& levels) {
  const std::size_t n = bytes.size();
  if (n < 2) return {};
  // The noise the breaks must stand above is also how far the best pieces the curve can have
  // miss it: no curve is exactly Hockney's pieces, and a bend is no break.
  SizeLevels judged = levels;
  const Partitions finest(bytes, levels);
  const double noise = std::max(levels.scatter, misfit(bytes, levels, finest.pieces(finest.firsts(finest.most_breaks()))));
  for (double& size_noise : judged.noise) size_noise = std::max(size_noise, noise);
  const Partitions partitions(bytes, judged);

  // The breaks that pay their penalty, searched among more than are told: a bend may take breaks
  // of its own, and the switch beside it must still be found. Told are the most prominent of
  // those that stand out and do not bound a wide passing stretch, each judged by the pieces beside it.
  const double penalty = kPenaltyPerBreak * std::log(static_cast<double>(n));
  CurvePieces found{partitions.pieces(partitions.firsts_paying(penalty)), {}, noise};
  settle_breaks(bytes, judged, found.pieces);
  const std::vector<bool> passing = set_stretches_aside(bytes, found.pieces);
  std::vector<std::pair<double, std::size_t>> prominent;
  for (std::size_t b = 1; b < found.pieces.size(); ++b)
    if (const double p = prominence(bytes, judged, found.pieces[b - 1], found.pieces[b], noise); !passing[b] && p >= kVisibleScales)
      prominent.emplace_back(p, b);
  std::sort(prominent.begin(), prominent.end(), std::greater<>());
  if (prominent.size() > kMaxBreaks) prominent.resize(kMaxBreaks);
  for (const auto& [p, b] : prominent) found.breaks.push_back(b);
  std::sort(found.breaks.begin(), found.breaks.end());
  return found;
}

}  // namespace npgpu
