#include "report/break_checks.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "results/statistics.hpp"
#include "report/change_points.hpp"

namespace npgpu {
namespace {

// log of a time over the line before the break at the same size
double off_the_line(const CurveBreak& cut, std::span<const double> bytes, std::size_t i, double seconds) {
  return std::log(seconds / cut.line_before.seconds(bytes[i]));
}

// The sizes before the break that recheck_indices names, and the sizes after it that may show its
// step. For a change of rate, the one within reach that the sweep shows farthest off the line
// before. For a jump or a drop, those of its NetPIPE triplet (n - 3, n, n + 3; within 10%): on a
// busy machine the sweep may place a switch a size or two early (vader's 2 KiB limit told at
// 2045 B, an eager size, the switch at 2051 B), and measured again the size with the largest step
// the sweep's way shows it (vader's 16 KiB limit told at 16381 B: 16384 B, the last eager size, lay
// x0.73 off the line, 16387 B above it). Not farther: there the line before, extrapolated, reads the path's next feature (the
// bend of a short piece as x1.6; memcpy's L2 a step on from 256 KiB as x1.3) as this one's step.
struct Sides {
  std::vector<std::size_t> before, after;
};

Sides sides_of(const CurveBreak& cut, std::span<const double> bytes, std::span<const double> fastest) {
  const std::size_t at = cut.index;
  std::size_t far_before = at - 1;
  while (far_before > cut.first_before && bytes[far_before - 1] * kNearby >= bytes[at]) --far_before;
  Sides sides{{far_before}, {at}};
  if (far_before != at - 1) sides.before.push_back(at - 1);
  if (cut.kind != BreakKind::slope) {
    for (std::size_t i = at + 1; i <= cut.last_after && bytes[i] <= kTriplet * bytes[at]; ++i) sides.after.push_back(i);
    return sides;
  }
  std::size_t farthest = at;
  for (std::size_t i = at; i <= cut.last_after && bytes[i] <= kRecheckReach * bytes[at - 1]; ++i)
    if (std::fabs(off_the_line(cut, bytes, i, fastest[i])) > std::fabs(off_the_line(cut, bytes, farthest, fastest[farthest])))
      farthest = i;
  sides.after = {farthest};
  return sides;
}

// The sizes across the setting a break is probably, as Sides.
Sides sides_of(const SettingSides& setting) { return {setting.below, setting.above}; }

// Both sides' sizes, those before first.
std::vector<std::size_t> indices_of(const Sides& sides) {
  std::vector<std::size_t> indices = sides.before;
  indices.insert(indices.end(), sides.after.begin(), sides.after.end());
  return indices;
}

bool valid(const CurveBreak& cut, std::span<const double> bytes, std::span<const double> fastest) {
  return cut.index > 0 && cut.index < bytes.size() && cut.last_after < bytes.size() && fastest.size() == bytes.size();
}

// judge_recheck for one pair of sides: where a size after shows a larger step the sweep's way than
// the cut holds, the cut takes it. False where the sides were not measured again.
bool judge_sides(CurveBreak& cut, const Sides& sides, std::span<const double> bytes, std::span<const double> fastest,
                 std::span<const std::vector<double>> rechecked) {
  std::size_t rounds = kRecheckRounds;
  for (std::size_t i : indices_of(sides)) rounds = std::min(rounds, i < rechecked.size() ? rechecked[i].size() : 0);
  if (rounds == 0) return false;
  double swept_level = 0;
  for (std::size_t i : sides.before) swept_level += off_the_line(cut, bytes, i, fastest[i]) / static_cast<double>(sides.before.size());
  // The largest step the way the sweep saw it; at a setting whose break the sweep did not tell, either way.
  const double way = cut.kind == BreakKind::drop ? -1 : 1;
  const auto beyond = [&](double step) { return cut.by_setting ? std::fabs(step) : way * step; };
  for (std::size_t i : sides.after) {
    // Each round's step, its sizes measured moments apart; their median, and how far they spread.
    std::vector<double> steps;
    for (std::size_t round = 0; round < rounds; ++round) {
      double level = 0;
      for (std::size_t b : sides.before)
        level += off_the_line(cut, bytes, b, rechecked[b][round]) / static_cast<double>(sides.before.size());
      steps.push_back(off_the_line(cut, bytes, i, rechecked[i][round]) - level);
    }
    const double step = median_of(steps);
    if (cut.step_again > 0 && beyond(step) <= beyond(std::log(cut.step_again))) continue;
    const double side = step < 0 ? -1 : 1;
    double weakest = side * steps.front();
    for (double s : steps) weakest = std::min(weakest, side * s);
    for (double& s : steps) s = std::fabs(s - step);
    cut.index_again = i;
    cut.bytes_again = bytes[i];
    cut.step_swept = std::exp(off_the_line(cut, bytes, i, fastest[i]) - swept_level);
    cut.step_again = std::exp(step);
    cut.noise_again = 1.4826 * median_of(steps);
    cut.weakest_again = std::exp(side * weakest);
  }
  return true;
}

// The break at `setting` of a curve whose sweep told none near it: the piece holding the first
// size past the setting split there (a piece the sweep found but did not tell may start there),
// each side fitted as the sweep's pieces are. Its kind is the way the two lines part there.
CurveBreak break_at_setting(std::span<const double> bytes, const SizeLevels& levels, const CurvePieces& found,
                            const SettingSides& setting) {
  const std::size_t at = setting.above.front();
  std::size_t holding = 0;
  while (holding + 1 < found.pieces.size() && found.pieces[holding].last < at) ++holding;
  const CurvePiece& piece = found.pieces[holding];
  const std::size_t first =
      piece.first == at && holding > 0 ? found.pieces[holding - 1].first : std::min(piece.first, setting.below.front());
  const std::size_t last = std::max(piece.last, setting.above.back());
  CurveBreak cut = break_between({first, at - 1, piece_line(bytes, levels, first, at - 1)},
                                 {at, last, piece_line(bytes, levels, at, last)}, found.noise, bytes);
  cut.kind = cut.jump < 1 ? BreakKind::drop : BreakKind::jump;
  cut.by_setting = true;
  cut.setting_bytes = setting.bytes;
  return cut;
}

}  // namespace

std::vector<std::size_t> recheck_indices(const CurveBreak& cut, std::span<const double> bytes,
                                         std::span<const double> fastest, const SettingSides* setting) {
  if (!valid(cut, bytes, fastest)) return {};
  std::set<std::size_t> indices;
  for (std::size_t i : indices_of(sides_of(cut, bytes, fastest))) indices.insert(i);
  if (setting != nullptr)
    for (std::size_t i : indices_of(sides_of(*setting))) indices.insert(i);
  return {indices.begin(), indices.end()};
}

const SettingSides* setting_of(const CurveBreak& cut, std::span<const CurveBreak> cuts,
                              std::span<const SettingSides> settings, std::span<const double> bytes) {
  const auto distance = [&](const CurveBreak& c, const SettingSides& setting) {
    return std::fabs(std::log(bytes[c.index] * bytes[c.index] / (bytes[setting.below.back()] * bytes[setting.above.front()])));
  };
  for (const SettingSides& setting : settings)
    if (setting.first_near <= cut.index && cut.index <= setting.last_near &&
        std::none_of(cuts.begin(), cuts.end(), [&](const CurveBreak& other) { return distance(other, setting) < distance(cut, setting); }))
      return &setting;
  return nullptr;
}

std::vector<BreakCandidate> break_candidates(std::span<const double> bytes, const SizeLevels& levels,
                                             const CurvePieces& found, std::span<const SettingSides> settings) {
  std::vector<CurveBreak> cuts;
  for (std::size_t b : found.breaks) cuts.push_back(break_between(found.pieces[b - 1], found.pieces[b], found.noise, bytes));
  std::vector<BreakCandidate> candidates;
  for (const CurveBreak& cut : cuts) candidates.push_back({cut, setting_of(cut, cuts, settings, bytes)});
  const auto off = [](const CurveBreak& cut, const SettingSides& setting) { return std::fabs(std::log(cut.bytes / setting.bytes)); };
  for (const SettingSides& setting : settings) {
    const bool covered = std::any_of(cuts.begin(), cuts.end(), [&](const CurveBreak& cut) {
      return off(cut, setting) <= std::log(kNearby) &&
             std::none_of(settings.begin(), settings.end(), [&](const SettingSides& other) { return off(cut, other) < off(cut, setting); });
    });
    if (!covered && !found.pieces.empty()) candidates.push_back({break_at_setting(bytes, levels, found, setting), &setting});
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const BreakCandidate& a, const BreakCandidate& b) { return a.cut.index < b.cut.index; });
  return candidates;
}

bool told_by_setting(const CurveBreak& cut) {
  const bool every_round = std::log(cut.weakest_again) * std::log(cut.step_again) > 0 &&
                           std::fabs(std::log(cut.weakest_again)) >= std::log(kLeastRepeat);
  return cut.setting_measured_again && cut.step_again > 0 && repeated(cut) && every_round;
}

std::vector<double> fastest_trials(const CurveData& curve) {
  std::vector<double> fastest;
  for (std::size_t i = 0; i < curve.seconds.size(); ++i) {
    const bool trials = i < curve.trial_seconds.size() && !curve.trial_seconds[i].empty();
    fastest.push_back(trials ? *std::min_element(curve.trial_seconds[i].begin(), curve.trial_seconds[i].end())
                             : curve.seconds[i]);
  }
  return fastest;
}

std::vector<std::size_t> slower_than_a_larger_size(std::span<const double> fastest) {
  std::vector<std::size_t> slower;
  double least_after = INFINITY;
  for (std::size_t i = fastest.size(); i-- > 0;) {
    if (fastest[i] > kLeastSlower * least_after) slower.push_back(i);
    if (fastest[i] > 0) least_after = std::min(least_after, fastest[i]);
  }
  std::reverse(slower.begin(), slower.end());
  return slower;
}

std::vector<std::size_t> sizes_to_measure_again(std::span<const double> bytes, std::span<const double> seconds,
                                                std::span<const std::vector<double>> trials,
                                                std::span<const SettingSides> settings) {
  if (bytes.size() < 2 || bytes.size() != seconds.size()) return {};
  const SizeLevels levels = size_levels(bytes, trials_or_times(seconds, trials));
  std::set<std::size_t> sizes;
  for (const BreakCandidate& candidate : break_candidates(bytes, levels, find_pieces(bytes, levels), settings))
    for (std::size_t index : recheck_indices(candidate.cut, bytes, levels.fastest, candidate.setting)) sizes.insert(index);
  for (std::size_t index : slower_than_a_larger_size(levels.fastest)) sizes.insert(index);
  return {sizes.begin(), sizes.end()};
}

std::vector<std::size_t> sizes_to_measure_again(const CurveData& curve, std::span<const SettingSides> settings) {
  return sizes_to_measure_again(curve.bytes_per_transfer, curve.seconds, curve.trial_seconds, settings);
}

void judge_recheck(CurveBreak& cut, std::span<const double> bytes, std::span<const double> fastest,
                   std::span<const std::vector<double>> rechecked, const SettingSides* setting) {
  if (!valid(cut, bytes, fastest)) return;
  judge_sides(cut, sides_of(cut, bytes, fastest), bytes, fastest, rechecked);
  cut.predicted = setting != nullptr;
  if (setting != nullptr) cut.setting_measured_again = judge_sides(cut, sides_of(*setting), bytes, fastest, rechecked);
  // A change of rate the sweep saw where the sizes across the setting, measured again, step every
  // round: the machine smeared the switch's step while the sweep went by (a CI launch told vader's
  // 2 KiB limit a "slope"); sizes a few bytes apart cannot part by a rate.
  const bool step_across_setting =
      setting != nullptr && std::count(setting->above.begin(), setting->above.end(), cut.index_again) > 0;
  const bool slope_stepped = cut.kind == BreakKind::slope && step_across_setting && told_by_setting(cut);
  if ((cut.by_setting || slope_stepped) && cut.step_again > 0) {
    cut.kind = cut.step_again < 1 ? BreakKind::drop : BreakKind::jump;
    cut.jump = cut.step_again;
    cut.seconds_after = cut.seconds_before * cut.step_again;
  }
}

bool repeated(const CurveBreak& cut) {
  return !(cut.step_again > 0) ||
         std::fabs(std::log(cut.step_again)) - kClearScales * cut.noise_again >= std::log(kLeastRepeat);
}

bool withdrawn(const CurveBreak& cut) {
  if (cut.kind == BreakKind::slope) return false;
  if (cut.predicted)
    return cut.setting_measured_again &&
           std::fabs(std::log(cut.step_again)) + kClearScales * cut.noise_again < std::log(kLeastRepeat);
  const bool swept_small = std::fabs(std::log(cut.step_swept)) < std::log(kLeastRepeat);
  return !repeated(cut) && (swept_small || std::fabs(std::log(cut.step_swept / cut.step_again)) >= kClearScales * cut.noise_again);
}

}  // namespace npgpu
