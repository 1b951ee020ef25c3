#include "report/expectations.hpp"

#include <cmath>
#include <optional>

namespace npgpu {
namespace {

// The curve's value at `bytes`, interpolated log-log between the sizes around it.
std::optional<double> value_at(const CurveData& curve, double bytes, ExpectationKind kind) {
  const auto value = [&](std::size_t i) {
    return kind == ExpectationKind::bandwidth ? curve.throughput(i) : curve.seconds[i];
  };
  for (std::size_t i = 0; i < curve.bytes.size(); ++i) {
    if (curve.bytes[i] == bytes) return value(i);
    if (i == 0 || curve.bytes[i] < bytes || curve.bytes[i - 1] > bytes) continue;
    const double where = std::log(bytes / curve.bytes[i - 1]) / std::log(curve.bytes[i] / curve.bytes[i - 1]);
    return std::exp(std::log(value(i - 1)) + where * (std::log(value(i)) - std::log(value(i - 1))));
  }
  return std::nullopt;
}

}  // namespace

std::vector<ExpectationOutcome> judge_expectations(const std::vector<Expectation>& expectations,
                                                   const std::vector<CurveData>& curves) {
  std::vector<ExpectationOutcome> outcomes;
  for (const Expectation& expectation : expectations)
    for (const CurveData& curve : curves) {
      const std::optional<double> measured =
          value_at(curve, static_cast<double>(expectation.bytes), expectation.kind);
      const bool met = measured && (expectation.kind == ExpectationKind::bandwidth ? *measured >= expectation.value
                                                                                   : *measured <= expectation.value);
      outcomes.push_back({expectation, curve.name, measured.value_or(std::nan("")), met});
    }
  return outcomes;
}

}  // namespace npgpu
