#pragma once
// What a curve does where its path's settings say it switches (PathWords::set_switches: an MPI's
// eager limit, read from the MPI when the run was made): the step across the setting's size in
// the fastest trials, and the break told beside it, which the report then names as that switch.
// A switch whose two protocols cost alike at its size leaves no break (vader's 64 KiB eager limit
// here: eager and single copy within 5% of each other); the setting still says where it is.
// Pure functions: no I/O, no MPI.
#include <span>
#include <vector>

#include "npgpu/path_words.hpp"
#include "report/hockney.hpp"

namespace npgpu {

// A setting's switch is looked for within one NetPIPE step (n, 1.5 n) of its size: the sizes about
// it may carry a header or not (Open MPI's eager limits count theirs), and a break is told at the
// first size of its new regime.
inline constexpr double kSwitchReach = 1.5;

struct SwitchCheck {
  SetSwitch set;
  // The fastest trials of the sizes within kSwitchReach above the setting's size (from 5% above
  // it: the header's few bytes either way) over the line through those within a factor 2 below
  // (to 5% below), the median; 0 where the curve has too few sizes there.
  double step = 0;
  double break_bytes = 0;  // the told break that is probably this switch; 0 for none
};

// The switches of `switches` that apply to the curve (`one_host`: its two ranks share a host)
// and lie inside its sizes (`bytes`: message sizes, ascending; `fastest`: each size's fastest
// trial), checked; each told break in `breaks` names the nearest of them within kSwitchReach,
// and one told by a setting (CurveBreak::by_setting) names its own.
std::vector<SwitchCheck> check_set_switches(std::span<const double> bytes, std::span<const double> fastest,
                                            std::span<const CurveBreak> breaks, std::span<const SetSwitch> switches,
                                            bool one_host);

// The switches of `switches` that apply to the curve and lie inside its sizes, as its sizes
// (indices of `bytes`): those within kSwitchReach of the setting, and the two nearest below it
// and above it outside the header's few bytes either way, which measuring a break near it again
// compares (break_checks.hpp). A setting without sizes on both sides is left out.
std::vector<SettingSides> setting_sides(std::span<const double> bytes, std::span<const SetSwitch> switches,
                                        bool one_host);

// The switch that a told break probably is, or nullptr.
const SwitchCheck* switch_of(const CurveBreak& cut, std::span<const SwitchCheck> checks);

}  // namespace npgpu
