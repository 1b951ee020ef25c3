#pragma once
// What every pair module leaves to its patterns (PairPatterns, or OneSidedPatterns for one-sided
// transports): which peers the step pairs, a trial, and the full data check. A module derives from
// PatternModule, builds its transport in setup and then its patterns in `patterns_`.
#include <cstdint>
#include <optional>

#include "npgpu/module.hpp"

namespace npgpu {

template <class Patterns>
class PatternModule : public Module {
 public:
  void select_peers(const Peers& peers) override { patterns_->select_peers(peers); }

  TrialTiming run(const TrialSpec& trial) override { return patterns_->run(trial); }

  void check(std::uint64_t bytes, std::uint64_t seed) override { patterns_->check(bytes, seed); }

 protected:
  // Destroyed after the module's own members: the patterns hold references to its memory and
  // transport and use them only when called, never when destroyed.
  std::optional<Patterns> patterns_;
};

}  // namespace npgpu
