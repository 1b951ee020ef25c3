#pragma once
// One size measured on a group, as curves and matrices both measure it: a window for it, a warm-up
// that calibrates the trials' repetitions, then trials until they are precise enough.
#include <cstdint>
#include <limits>

#include "npgpu/module.hpp"
#include "results/options.hpp"
#include "run/collective_steps.hpp"
#include "results/results.hpp"

namespace npgpu {

class SizeMeasurement {
 public:
  SizeMeasurement(CollectiveSteps& steps, Module& module, const RunOptions& options)
      : steps_(steps), module_(module), options_(options) {}

  // A new sweep (or matrix step): no size measured yet to predict the next from.
  void start_sweep();

  // Collective. Each rank returns its own result; a timer's holds its trials.
  SizeResult measure(const Group& group, std::uint64_t bytes, Pattern pattern);
  SizeResult measure(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t window);

  // Collective: the messages in this size's window.
  std::uint64_t choose_window(const Group& group, std::uint64_t bytes, Pattern pattern);

  // Of this sweep (or matrix step): a pingpong, or a window of one; infinite while none was timed.
  double shortest_round_trip() const { return shortest_round_trip_; }

 private:
  static constexpr double kNone = std::numeric_limits<double>::infinity();
  // Under load: single repetitions timed one by one after the trials, their 99th percentile kept.
  void measure_tail(const Group& group, SizeResult& result, std::uint64_t window, double seconds_per_rep);

  CollectiveSteps& steps_;
  Module& module_;
  const RunOptions& options_;
  double shortest_round_trip_ = kNone;
  double clock_steps_ = kNone;  // the coarsest resolution of the team's clocks, once the tail needs it
};

}  // namespace npgpu
