#include "report/set_switches.hpp"

#include <algorithm>
#include <cmath>

#include "results/statistics.hpp"

namespace npgpu {
namespace {

constexpr double kHeaderGap = 1.05, kBelow = 2;

bool applies(const SetSwitch& set, bool one_host) {
  switch (set.reach) {
    case SetSwitch::Reach::any: return true;
    case SetSwitch::Reach::one_host: return one_host;
    case SetSwitch::Reach::between_hosts: break;
  }
  return !one_host;
}

double distance(double a, double b) { return std::fabs(std::log(a / b)); }

double step_across(std::span<const double> bytes, std::span<const double> fastest, double at) {
  std::size_t first = bytes.size(), last = 0;
  std::vector<std::size_t> past;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] * kBelow >= at && bytes[i] * kHeaderGap <= at) first = std::min(first, i), last = i;
    if (bytes[i] >= at * kHeaderGap && bytes[i] <= at * kSwitchReach) past.push_back(i);
  }
  if (first >= last || past.empty()) return 0;
  std::vector<double> weights, steps;
  for (std::size_t i = first; i <= last; ++i) weights.push_back(1 / (fastest[i] * fastest[i]));
  const HockneyLine line = weighted_hockney_line(bytes, fastest, weights, first, last);
  for (std::size_t i : past) steps.push_back(std::log(fastest[i] / line.seconds(bytes[i])));
  return std::exp(median_of(steps));
}

}  // namespace

std::vector<SwitchCheck> check_set_switches(std::span<const double> bytes, std::span<const double> fastest,
                                            std::span<const CurveBreak> breaks, std::span<const SetSwitch> switches,
                                            bool one_host) {
  std::vector<SwitchCheck> checks;
  if (bytes.empty() || fastest.size() != bytes.size()) return checks;
  for (const SetSwitch& set : switches)
    if (applies(set, one_host) && set.bytes > bytes.front() && set.bytes < bytes.back())
      checks.push_back({set, step_across(bytes, fastest, set.bytes), 0});
  for (const CurveBreak& cut : breaks) {
    SwitchCheck* nearest = nullptr;
    for (SwitchCheck& check : checks)
      if (cut.by_setting ? check.set.bytes == cut.setting_bytes
                         : distance(cut.bytes, check.set.bytes) <= std::log(kSwitchReach) &&
                               (nearest == nullptr || distance(cut.bytes, check.set.bytes) < distance(cut.bytes, nearest->set.bytes)))
        nearest = &check;
    if (nearest != nullptr &&
        (nearest->break_bytes == 0 || distance(cut.bytes, nearest->set.bytes) < distance(nearest->break_bytes, nearest->set.bytes)))
      nearest->break_bytes = cut.bytes;
  }
  return checks;
}

std::vector<SettingSides> setting_sides(std::span<const double> bytes, std::span<const SetSwitch> switches,
                                        bool one_host) {
  constexpr std::size_t kEachSide = 2;
  std::vector<SettingSides> found;
  for (const SetSwitch& set : switches) {
    if (!applies(set, one_host)) continue;
    SettingSides sides{set.bytes, bytes.size(), 0, {}, {}};
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (distance(bytes[i], set.bytes) <= std::log(kSwitchReach))
        sides.first_near = std::min(sides.first_near, i), sides.last_near = i;
      if (bytes[i] * kHeaderGap <= set.bytes && bytes[i] * kBelow >= set.bytes) sides.below.push_back(i);
      if (bytes[i] >= set.bytes * kHeaderGap && bytes[i] <= set.bytes * kSwitchReach && sides.above.size() < kEachSide)
        sides.above.push_back(i);
    }
    if (sides.below.size() > kEachSide) sides.below.erase(sides.below.begin(), sides.below.end() - kEachSide);
    if (!sides.below.empty() && !sides.above.empty()) found.push_back(std::move(sides));
  }
  return found;
}

const SwitchCheck* switch_of(const CurveBreak& cut, std::span<const SwitchCheck> checks) {
  for (const SwitchCheck& check : checks)
    if (check.break_bytes == cut.bytes) return &check;
  return nullptr;
}

}  // namespace npgpu
