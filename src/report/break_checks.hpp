#pragma once
// A break measured again. NetPIPE walks the sizes upward, so along a sweep the size and the time
// grow together: a change of the machine that lasts (other work, the cores the ranks landed on, two
// ranks sharing a core's caches for a while) steps the curve as a protocol switch does, and one
// sweep cannot tell them apart. Right after the sweep, the sizes beside each break are measured
// again in turn, upward then downward, round after round: there both sides see the same machine,
// so a switch steps again and a change of the machine does not. docs/ARCHITECTURE.md says why.
// Pure functions: no I/O, no MPI.
#include <cstddef>
#include <span>
#include <vector>

#include "results/run_data.hpp"
#include "report/change_points.hpp"
#include "report/hockney.hpp"

namespace npgpu {

// Rounds over a curve's sizes to measure again, one trial of each size a round, upward in even
// rounds and downward in odd ones, so that a drift of the machine falls alike on both sides.
inline constexpr std::size_t kRecheckRounds = 4;
// A break is told where, measured again, the size after it steps off the line before it by
// kLeastRepeat at least (half of kLeastChange in log: a switch of the smallest step told still
// shows), beyond kClearScales times the spread of the rounds measured again (the size that shows
// the step is the one of several with the largest, and one noisy size read x1.16 where the machine
// alone had made the step). Either way: the first sizes past a switch may pay a one-off cost in
// the sweep (vader's eager limit at 16 KiB: x1.56 in the sweep, x0.68 measured again, where
// single-copy rendezvous outruns eager's two copies). The size of the step is not held to the
// sweep's: the machine may change between the two in ways that move small and large sizes unlike
// (vader's 4 KiB limit: x3.35 in the sweep, x1.57 measured again, while the eager sizes before it
// had slowed 2.7 times and the rendezvous ones 1.3).
inline constexpr double kLeastRepeat = 1.118, kClearScales = 2;
// How far past a break its step is looked for: a jump or a drop within its NetPIPE triplet; a
// change of rate, which shows more the farther it goes, within kRecheckReach.
inline constexpr double kTriplet = 1.1, kRecheckReach = 4;

// The sizes measured again for a break (indices into the curve, ascending): before it, the size
// next to it and the farthest of its piece within kNearby of it, which say where the line before
// lies when measured again; after it, those that may show its step: for a jump or a drop the sizes
// within kTriplet of it, for a change of rate the one of its piece within kRecheckReach of it
// that `fastest` (the sweep's fastest trial of each size) shows farthest off the line before. Where
// the path's settings predict a switch near the break (`setting`), the sizes across the setting
// too: the sweep may tell the break a few sizes from it (a machine that slowed just before the
// switch: vader's 2 KiB limit told at 1536 B, whose own sides measured again were all eager).
std::vector<std::size_t> recheck_indices(const CurveBreak& cut, std::span<const double> bytes,
                                         std::span<const double> fastest, const SettingSides* setting = nullptr);

// The setting of `settings` whose sizes near it hold the break, where no other of `cuts` (the
// curve's breaks, this one among them) lies nearer to it; or nullptr. One switch is one break:
// a step the machine made beside it does not take the switch's evidence.
const SettingSides* setting_of(const CurveBreak& cut, std::span<const CurveBreak> cuts,
                               std::span<const SettingSides> settings, std::span<const double> bytes);

// A break to judge by measuring again, with the setting it is judged across (nullptr: none).
struct BreakCandidate {
  CurveBreak cut;
  const SettingSides* setting = nullptr;
};

// The breaks the sweep's pieces (`found`) tell, each with its setting_of; and for each of
// `settings` that none of those stands for (a break within kNearby of it, and nearer it than any
// other setting: one told a little beyond kSwitchReach may be the same switch, and one switch is
// one break), one at the setting (by_setting, named by it): the piece of the sweep that holds it
// split there. TCP's 48 KiB limit was missed where a drop at 96 KiB, another setting's, had
// stood for it. The sweep may tell no break near a switch
// at all, where the machine slowed around it (vader's 1 KiB limit: only a drop at 3069 B told),
// and a break never told would never be measured again. Ascending.
std::vector<BreakCandidate> break_candidates(std::span<const double> bytes, const SizeLevels& levels,
                                             const CurvePieces& found, std::span<const SettingSides> settings);

// A break at a setting that the sweep's pieces did not tell is told only on what measuring again
// shows: the sizes across the setting measured again, a step there clearly (repeated), and by
// kLeastRepeat in every round the same way. Four rounds' spread can read small by chance: on a
// busy machine (a size's trials 20% apart) the median and spread alone told a step at one
// setting of 20 with none there.
bool told_by_setting(const CurveBreak& cut);

// Each size's fastest trial, as analyse_hockney has them (a size without trials: its one time).
std::vector<double> fastest_trials(const CurveData& curve);

// The sizes whose fastest trial took kLeastSlower times as long as a larger size's did (indices,
// ascending). Over one path fewer bytes take no longer, unless the protocol or the machine changed
// between the two: measured again, a moment of the machine falls back onto the curve (another
// process on CI's two cores for half a second: mpi over TCP from 1 to 27 B, 13 sizes in a row, at
// a third of a reference launch's rate), and a path truly slower at small sizes (a delayed
// acknowledgement, an eager limit set low) stays slow. The baseline judges a size by its trials of
// both.
inline constexpr double kLeastSlower = 1.1;
std::vector<std::size_t> slower_than_a_larger_size(std::span<const double> fastest);

// The sizes of a curve to measure again after its sweep: those of recheck_indices for every
// break_candidates gives, and those slower_than_a_larger_size, ascending.
std::vector<std::size_t> sizes_to_measure_again(std::span<const double> bytes, std::span<const double> seconds,
                                                std::span<const std::vector<double>> trials,
                                                std::span<const SettingSides> settings);
std::vector<std::size_t> sizes_to_measure_again(const CurveData& curve, std::span<const SettingSides> settings);

// Where the sizes of recheck_indices were measured again (`rechecked`: each size's trials in the
// order measured, one a round, time per transfer), fills cut.index_again, bytes_again,
// step_swept, step_again and noise_again: at the size after the break whose step measured again
// is the largest the way the sweep saw it (a drop's: the smallest), the step over the line
// before, scaled by where the sizes before the break lie: in the sweep from the fastest trials; measured
// again, the median over the rounds of each round's step, whose sizes were measured moments apart
// (the machine can change between rounds: vader's sizes of 2 to 8 KiB ran 3 times slower in 3
// rounds and not in the fourth, and the fastest trial of each size mixed the two), with the
// rounds' robust spread (1.48 MAD, log) as its noise. Leaves them 0 otherwise. With a `setting`
// near the break, the sizes across it count as after and before too, and the cut says so
// (predicted, setting_measured_again). A break by_setting takes its kind and jump from the step
// measured again: the sweep's pieces did not part there.
void judge_recheck(CurveBreak& cut, std::span<const double> bytes, std::span<const double> fastest,
                   std::span<const std::vector<double>> rechecked, const SettingSides* setting = nullptr);

// Measured again, the sizes on the two sides part as above (or they were not measured again).
bool repeated(const CurveBreak& cut);

// Not repeated, and the measurement again clear enough to say so: what the sweep saw beyond it
// (the machine's part) stands kClearScales times above the spread of the rounds measured again. A
// busy machine blurs the rounds measured again as it blurs the sweep's trials (a third busy
// process on this machine's 2 cores: a planted eager limit of x4.2 read x1.45): then the break
// stands as found, and the report says that measuring again could not tell. Unless the
// sweep's own step there was under kLeastRepeat: then neither measurement shows a break there.
// Only a jump or a drop is withdrawn: a change of rate shows as a step only away from the break,
// where the line before is extrapolated, and there it can be too weak to settle (vader's eager
// limit at 64 KiB: x0.84 in the sweep, x0.91 measured again; at 8 KiB the sweep told a change of
// rate a size before the switch, whose sizes measured again showed nothing); it stands, with both
// steps said. A break its path's settings predict (a setting within kSwitchReach) needs more: the
// sizes across the setting measured again too, and no step there or beside the break, clearly:
// the largest step measured again under kLeastRepeat by kClearScales spreads of its rounds. A
// sweep's step that did not show again is not enough where the rounds are noisy (a busy machine:
// vader's 2 KiB limit measured again x1.78, its rounds spread 67%, where the sweep's size read
// x1.09).
bool withdrawn(const CurveBreak& cut);

}  // namespace npgpu
