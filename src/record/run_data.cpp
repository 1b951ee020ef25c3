#include "record/run_data.hpp"

#include "record/record.hpp"

namespace npgpu {

std::vector<CurveData> curves_of(const RunRecord& record) {
  std::vector<CurveData> curves;
  for (const Curve& curve : record.curves) {
    CurveData data;
    data.name = curve_name(curve);
    data.rank = curve.rank;
    data.host = curve.host;
    data.peer = curve.peer;
    data.peer_host = curve.peer_host;
    data.link_peak = curve.link_peak;
    for (const SizeResult& size : curve.sizes) {
      data.bytes.push_back(static_cast<double>(size.bytes));
      data.bytes_per_transfer.push_back(size.shape.bytes_per_transfer);
      data.seconds.push_back(headline_of(size.time, record.options.headline));
      data.seconds_min.push_back(size.time.min);
      data.seconds_max.push_back(size.time.max);
      data.trials.push_back(static_cast<double>(size.trial_seconds.size()));
      std::vector<double>& per_transfer = data.trial_seconds.emplace_back();
      for (double trial : size.trial_seconds) per_transfer.push_back(size.seconds_per_transfer(trial));
    }
    curves.push_back(std::move(data));
  }
  return curves;
}

}  // namespace npgpu
