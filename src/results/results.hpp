#pragma once
// What a sweep produced: raw trials per size and their statistics, one curve per timing rank.
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "npgpu/module.hpp"
#include "results/statistics.hpp"

namespace npgpu {

// A run as last saved: complete, incomplete (interrupted) or failed.
enum class RunStatus { complete, incomplete, failed };
const char* status_name(RunStatus status);
// The status a record names; a name this npgpu does not know reads as incomplete.
RunStatus status_named(const std::string& name);

struct SizeResult {
  std::uint64_t bytes = 0;
  std::uint64_t reps = 0;  // repetitions in each trial
  TransferShape shape{1, 0};
  std::vector<double> trial_seconds;      // raw: one entry per trial, all repetitions
  std::vector<double> trial_alt_seconds;  // the module's second timer, or empty
  Summary time;                           // one-way time per transfer over the trials
  double precision = 0;                   // median_relative_error of the per-transfer times
  double wall_seconds = 0;                // what this size cost, warm-up included
  // The tail (runs under load, small pingpong sizes): the 99th percentile of the one-way time per
  // transfer over single repetitions timed one by one, and how many; NaN and 0 where not measured.
  double tail_p99 = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t tail_messages = 0;

  double seconds_per_transfer(double trial_seconds) const {
    return trial_seconds / (static_cast<double>(reps) * shape.transfers_per_rep);
  }
  double throughput(double seconds_per_transfer) const {
    return shape.bytes_per_transfer / seconds_per_transfer;
  }
};

// Fills `time` and `precision` from the raw trial times.
void summarize_trials(SizeResult& result);

// A SizeResult travels between ranks as a flat vector of doubles of a fixed length.
std::vector<double> pack(const SizeResult& result, std::size_t max_trials);
SizeResult unpack(const double* packed, std::size_t max_trials);
std::size_t packed_length(std::size_t max_trials);

struct Curve {
  int rank = 0;
  std::string host;
  std::string variant;  // empty, or which of the module's variants (p2p: the GPU pair)
  std::vector<SizeResult> sizes;
  LinkPeak link_peak;   // of the link this curve exercised, when the module knows it
  int peer = -1;        // pair modules: the rank this one measured with
  std::string peer_host;
  // Trials measured again after the sweep, in turn, around the breaks it shows (break_checks.hpp),
  // each with its size's repetitions and window: their sizes and raw seconds, in the order measured.
  std::vector<std::uint64_t> recheck_bytes;
  std::vector<double> recheck_trial_seconds;
};

// Sizes whose one repetition outlasts the trial time, so that each trial is that one repetition
// and longer than asked: "from 32 MiB (3 sizes), one repetition outlasts --trial-time 10 ms: ..."
// in words, or empty where there are none.
std::string long_repetitions_text(const std::vector<Curve>& curves, double trial_seconds);

// The curve's name in the record: "rank0", or "rank0_gpu0_to_gpu1" with a variant.
std::string curve_name(const Curve& curve);

// The closing numbers of a curve, from the headline statistic.
struct CurveSummary {
  std::uint64_t latency_bytes = 0;
  double latency_seconds = 0;   // one-way time at the smallest size
  std::uint64_t peak_bytes = 0;
  double peak_throughput = 0;   // bytes per second
  std::uint64_t half_peak_bytes = 0;  // smallest size reaching half the peak (n1/2)
};
CurveSummary summarize_curve(const Curve& curve, Headline headline);
// The same from a curve's sizes, headline one-way times and throughputs.
CurveSummary summarize_points(std::span<const double> bytes, std::span<const double> seconds,
                              std::span<const double> throughput);

// Pairs measured at the same time (--pairs halves), size by size: the sum of their throughputs,
// what the fabric gives when everyone talks, and the slowest pair; with --concurrency alone, the
// sum of what each gets alone. The curves share one schedule; sizes not all of them finished yet
// are left out.
struct PairsAggregate {
  std::vector<std::uint64_t> bytes;
  std::vector<double> sum;      // bytes per second, from each pair's headline time
  std::vector<double> slowest;  // bytes per second
  std::vector<int> slowest_rank;
};
PairsAggregate aggregate_pairs(const std::vector<Curve>& curves, Headline headline);

}  // namespace npgpu
