#pragma once
// Where a curve changes regime, decided from its raw trials: the fastest trial of each size (what
// the path costs when nothing else got in the way), fitted by Hockney pieces t(n) = alpha + n / beta
// that dynamic programming chooses under a penalty per break (BIC). A size counts against a piece
// by its distance in noise scales (its trials' spread, or the curve's scatter from size to size, or
// how far the best pieces miss, whichever is largest), and no size costs more than
// kDisturbedScales^2, as a size the machine slowed or sped up would. A break is told only where
// the pieces on its two sides part visibly near it. docs/ARCHITECTURE.md says why this method.
// Pure functions: no I/O, no MPI.
#include <cstddef>
#include <span>
#include <vector>

#include "report/hockney.hpp"

namespace npgpu {

// The fastest trial of each size and how far each can be trusted.
struct SizeLevels {
  std::vector<double> fastest;  // seconds per transfer
  std::vector<double> noise;    // relative: the larger of the size's own spread and `scatter`
  double scatter = 0;  // relative: how far a size strays from the line through its neighbours (robust)
};

// `trials[i]`: the times per transfer of size i's trials, at least one. A size's own spread is the
// gap between its two fastest trials (none with one trial).
SizeLevels size_levels(std::span<const double> bytes, std::span<const std::vector<double>> trials);

// The trials of a curve as size_levels takes them: a size without trials stands for its one time.
std::vector<std::vector<double>> trials_or_times(std::span<const double> seconds,
                                                 std::span<const std::vector<double>> trials);

// The line of a piece of sizes first..last, fitted as find_pieces fits its pieces.
HockneyLine piece_line(std::span<const double> bytes, const SizeLevels& levels, std::size_t first, std::size_t last);

inline constexpr std::size_t kMaxBreaks = 3;     // told
inline constexpr std::size_t kSearchBreaks = 6;  // searched: the most prominent kMaxBreaks are told
// Two sizes for the line and one to judge it by: NetPIPE measures n - 3, n and n + 3, and a regime
// can be one such triplet wide (vader's 259 to 384 B, between its inline-send limit and the next
// step); with four, the triplet's breaks drifted to a neighbouring size from launch to launch.
inline constexpr std::size_t kMinPiecePoints = 3;
// Beyond this many noise scales off a piece, a size is taken as disturbed and costs this squared.
inline constexpr double kDisturbedScales = 3;
// The penalty per break, in squared noise scales, is this times ln(sizes): BIC's ln(n) per
// parameter, a break adding three (where it is, and a line of two), and one more for the margin
// that pieces of three sizes need: three disturbed sizes save at most 3 x kDisturbedScales^2 = 27,
// and fencing them off takes two breaks, 2 x 4 ln(100) = 37 (with 3 ln(n), 28: a coin toss).
inline constexpr double kPenaltyPerBreak = 4;
// A break is told where the pieces on its two sides part, within a factor kNearby of its size, by
// kVisibleScales noise scales and by a factor kLeastTold at least. Weaker features of a path (x1.2
// to 1.5: vader's inline sends to 256 B and fast boxes to 4 KiB, a change of rate at 1.5 KiB) were
// told in one launch and not the next, on this 2-core machine and on a quiet 16-core one alike, so
// no bar under them tells them consistently; where an MPI is set to switch, the report names the
// switch from its settings whatever the curve shows (set_switches.hpp). A step of half again, a
// bandwidth that halves or one that grows fourfold parts the pieces by x1.5 within a factor 2.
// Where the fits step by kLeastChange at the break it jumped or fell, else its rate changed.
inline constexpr double kNearby = 2, kVisibleScales = 3, kLeastTold = 1.5, kLeastChange = 1.25;

struct CurvePieces {
  // The regimes that pay their penalty (up to kSearchBreaks + 1), ascending; none for fewer than
  // two sizes.
  std::vector<CurvePiece> pieces;
  // The breaks told: each the index of the piece that starts it, ascending, at most kMaxBreaks.
  std::vector<std::size_t> breaks;
  // The relative noise the breaks stand above: the scatter from size to size, or how far the best
  // pieces the curve can have (kSearchBreaks breaks) miss a typical size, whichever is larger.
  double noise = 0;
};

CurvePieces find_pieces(std::span<const double> bytes, const SizeLevels& levels);

}  // namespace npgpu
