#include "results/results.hpp"

#include <algorithm>
#include <cmath>

#include "npgpu/sizes.hpp"

namespace npgpu {

const char* status_name(RunStatus status) {
  switch (status) {
    case RunStatus::complete: return "complete";
    case RunStatus::incomplete: return "incomplete";
    case RunStatus::failed: return "failed";
  }
  return "incomplete";
}

RunStatus status_named(const std::string& name) {
  for (RunStatus status : {RunStatus::complete, RunStatus::failed})
    if (name == status_name(status)) return status;
  return RunStatus::incomplete;
}
namespace {

// bytes, reps, transfers, bytes/transfer, wall, trials, alt trials, tail p99, tail messages
constexpr std::size_t kHeader = 9;

}  // namespace

void summarize_trials(SizeResult& result) {
  std::vector<double> per_transfer;
  per_transfer.reserve(result.trial_seconds.size());
  for (double seconds : result.trial_seconds) per_transfer.push_back(result.seconds_per_transfer(seconds));
  result.time = summarize(per_transfer);
  result.precision = median_relative_error(per_transfer);
}

std::size_t packed_length(std::size_t max_trials) { return kHeader + 2 * max_trials; }

std::vector<double> pack(const SizeResult& result, std::size_t max_trials) {
  std::vector<double> packed(packed_length(max_trials), std::nan(""));
  packed[0] = static_cast<double>(result.bytes);
  packed[1] = static_cast<double>(result.reps);
  packed[2] = result.shape.transfers_per_rep;
  packed[3] = result.shape.bytes_per_transfer;
  packed[4] = result.wall_seconds;
  packed[5] = static_cast<double>(result.trial_seconds.size());
  packed[6] = static_cast<double>(result.trial_alt_seconds.size());
  packed[7] = result.tail_p99;
  packed[8] = static_cast<double>(result.tail_messages);
  for (std::size_t i = 0; i < result.trial_seconds.size(); ++i) packed[kHeader + i] = result.trial_seconds[i];
  for (std::size_t i = 0; i < result.trial_alt_seconds.size(); ++i)
    packed[kHeader + max_trials + i] = result.trial_alt_seconds[i];
  return packed;
}

SizeResult unpack(const double* packed, std::size_t max_trials) {
  SizeResult result;
  result.bytes = static_cast<std::uint64_t>(packed[0]);
  result.reps = static_cast<std::uint64_t>(packed[1]);
  result.shape = {packed[2], packed[3]};
  result.wall_seconds = packed[4];
  const auto trials = static_cast<std::size_t>(packed[5]);
  const auto alt_trials = static_cast<std::size_t>(packed[6]);
  result.tail_p99 = packed[7];
  result.tail_messages = static_cast<std::uint64_t>(packed[8]);
  result.trial_seconds.assign(packed + kHeader, packed + kHeader + trials);
  result.trial_alt_seconds.assign(packed + kHeader + max_trials, packed + kHeader + max_trials + alt_trials);
  summarize_trials(result);
  return result;
}

std::string long_repetitions_text(const std::vector<Curve>& curves, double trial_seconds) {
  std::vector<std::uint64_t> sizes;
  double longest = 0;
  for (const Curve& curve : curves)
    for (const SizeResult& size : curve.sizes)
      if (size.reps == 1 && size.time.median * size.shape.transfers_per_rep > trial_seconds) {
        sizes.push_back(size.bytes);
        for (double seconds : size.trial_seconds) longest = std::max(longest, seconds);
      }
  if (sizes.empty()) return {};
  std::sort(sizes.begin(), sizes.end());
  const auto count = static_cast<std::size_t>(std::unique(sizes.begin(), sizes.end()) - sizes.begin());
  return "from " + format_bytes(sizes.front()) + " (" + std::to_string(count) + (count == 1 ? " size" : " sizes") +
         "), one repetition outlasts --trial-time " + format_seconds(trial_seconds) +
         ": each trial there is one repetition, the longest " + format_seconds(longest);
}

std::string curve_name(const Curve& curve) {
  return "rank" + std::to_string(curve.rank) + (curve.variant.empty() ? "" : "_" + curve.variant);
}

CurveSummary summarize_points(std::span<const double> bytes, std::span<const double> seconds,
                              std::span<const double> throughput) {
  CurveSummary summary;
  if (bytes.empty()) return summary;
  summary.latency_bytes = static_cast<std::uint64_t>(bytes.front());
  summary.latency_seconds = seconds.front();
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (throughput[i] > summary.peak_throughput) {
      summary.peak_throughput = throughput[i];
      summary.peak_bytes = static_cast<std::uint64_t>(bytes[i]);
    }
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (throughput[i] >= 0.5 * summary.peak_throughput) {
      summary.half_peak_bytes = static_cast<std::uint64_t>(bytes[i]);
      break;
    }
  return summary;
}

CurveSummary summarize_curve(const Curve& curve, Headline headline) {
  std::vector<double> bytes, seconds, throughput;
  for (const SizeResult& size : curve.sizes) {
    bytes.push_back(static_cast<double>(size.bytes));
    seconds.push_back(headline_of(size.time, headline));
    throughput.push_back(size.throughput(seconds.back()));
  }
  return summarize_points(bytes, seconds, throughput);
}

PairsAggregate aggregate_pairs(const std::vector<Curve>& curves, Headline headline) {
  PairsAggregate aggregate;
  if (curves.empty()) return aggregate;
  // Pairs measured in turn (--concurrency alone) have finished different numbers of sizes so far.
  std::size_t finished = curves.front().sizes.size();
  for (const Curve& curve : curves) finished = std::min(finished, curve.sizes.size());
  for (std::size_t i = 0; i < finished; ++i) {
    double sum = 0, slowest = 0;
    int slowest_rank = -1;
    for (const Curve& curve : curves) {
      const SizeResult& size = curve.sizes.at(i);
      const double throughput = size.throughput(headline_of(size.time, headline));
      sum += throughput;
      if (slowest_rank < 0 || throughput < slowest) {
        slowest = throughput;
        slowest_rank = curve.rank;
      }
    }
    aggregate.bytes.push_back(curves.front().sizes[i].bytes);
    aggregate.sum.push_back(sum);
    aggregate.slowest.push_back(slowest);
    aggregate.slowest_rank.push_back(slowest_rank);
  }
  return aggregate;
}

}  // namespace npgpu
