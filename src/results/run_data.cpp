#include "results/run_data.hpp"

#include <algorithm>

#include "results/run_record.hpp"

namespace npgpu {

CurveData curve_data(const Curve& curve, Headline headline) {
  CurveData data;
  data.name = curve_name(curve);
  data.rank = curve.rank;
  data.host = curve.host;
  data.peer = curve.peer;
  data.peer_host = curve.peer_host;
  data.link_peak = curve.link_peak;
  std::vector<double> divisors;
  for (const SizeResult& size : curve.sizes) {
    data.bytes.push_back(static_cast<double>(size.bytes));
    data.bytes_per_transfer.push_back(size.shape.bytes_per_transfer);
    data.seconds.push_back(headline_of(size.time, headline));
    data.seconds_min.push_back(size.time.min);
    data.seconds_max.push_back(size.time.max);
    data.trials.push_back(static_cast<double>(size.trial_seconds.size()));
    data.wall_seconds.push_back(size.wall_seconds);
    data.tail_p99_seconds.push_back(size.tail_p99);
    std::vector<double>& per_transfer = data.trial_seconds.emplace_back();
    for (double trial : size.trial_seconds) per_transfer.push_back(size.seconds_per_transfer(trial));
    divisors.push_back(static_cast<double>(size.reps) * size.shape.transfers_per_rep);
  }
  const std::vector<double> recheck_bytes(curve.recheck_bytes.begin(), curve.recheck_bytes.end());
  data.rechecked = rechecked_by_size(data.bytes, divisors, recheck_bytes, curve.recheck_trial_seconds);
  return data;
}

std::vector<CurveData> curves_of(const RunRecord& record) {
  std::vector<CurveData> curves;
  for (const Curve& curve : record.curves) curves.push_back(curve_data(curve, record.options.headline));
  return curves;
}

std::vector<std::vector<double>> rechecked_by_size(std::span<const double> bytes, std::span<const double> divisors,
                                                   std::span<const double> recheck_bytes,
                                                   std::span<const double> recheck_seconds) {
  std::vector<std::vector<double>> by_size(bytes.size());
  for (std::size_t k = 0; k < recheck_bytes.size() && k < recheck_seconds.size(); ++k) {
    const auto size = std::find(bytes.begin(), bytes.end(), recheck_bytes[k]);
    const auto i = static_cast<std::size_t>(size - bytes.begin());
    if (size != bytes.end() && i < divisors.size() && divisors[i] > 0 && recheck_seconds[k] > 0)
      by_size[i].push_back(recheck_seconds[k] / divisors[i]);
  }
  return by_size;
}

}  // namespace npgpu
