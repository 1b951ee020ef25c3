#include "results/expectations.hpp"

#include <cmath>
#include <cstdlib>
#include <utility>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

using UnitTable = std::vector<std::pair<const char*, double>>;

// Rate units are case-sensitive: Gb/s is bits, GB/s bytes.
const UnitTable kRateUnits{{"B/s", 1},         {"kB/s", 1e3},       {"MB/s", 1e6},         {"GB/s", 1e9},
                       {"TB/s", 1e12},     {"KiB/s", 1024.0},   {"MiB/s", 1048576.0},  {"GiB/s", 1073741824.0},
                       {"Mb/s", 1e6 / 8},  {"Gb/s", 1e9 / 8}};
const UnitTable kTimeUnits{{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};

std::string unit_names(const UnitTable& units) {
  std::string names;
  for (const auto& [name, factor] : units) names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

Expectation parse(const std::string& text, ExpectationKind kind) {
  const bool bandwidth = kind == ExpectationKind::bandwidth;
  const std::string option = bandwidth ? "--expect-bw" : "--expect-latency";
  const UnitTable& units = bandwidth ? kRateUnits : kTimeUnits;
  const std::string form = bandwidth ? "SIZE=RATE, e.g. 1M=10GB/s (rates in " + unit_names(units) + ")"
                                     : "SIZE=TIME, e.g. 8=2us (times in " + unit_names(units) + ")";
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos) throw UsageError(option + " '" + text + "': expected " + form);
  Expectation expectation{kind, parse_size(text.substr(0, equals), option), 0, option + " " + text};
  const std::string amount = text.substr(equals + 1);
  char* end = nullptr;
  const double number = std::strtod(amount.c_str(), &end);
  std::string unit(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  for (const auto& [name, factor] : units)
    if (unit == name && end != amount.c_str() && number > 0 && std::isfinite(number)) {
      expectation.value = number * factor;
      return expectation;
    }
  throw UsageError(option + " '" + text + "': '" + amount + "' is not a positive " +
                   (bandwidth ? "rate" : "time") + " with a unit; expected " + form);
}

}  // namespace

Expectation parse_expect_bw(const std::string& text) { return parse(text, ExpectationKind::bandwidth); }
Expectation parse_expect_latency(const std::string& text) { return parse(text, ExpectationKind::latency); }

std::string describe_outcome(const ExpectationOutcome& outcome) {
  const Expectation& e = outcome.expectation;
  const std::string at = " at " + format_bytes(e.bytes);
  if (std::isnan(outcome.measured)) return e.given + ": " + outcome.curve + " did not measure" + at;
  const std::string measured = e.kind == ExpectationKind::bandwidth ? format_throughput(outcome.measured, Units::decimal)
                                                                    : format_seconds(outcome.measured);
  return e.given + ": " + outcome.curve + (e.kind == ExpectationKind::bandwidth ? " reached " : " took ") + measured +
         at + (outcome.met ? " (met)" : " (NOT MET)");
}

}  // namespace npgpu
