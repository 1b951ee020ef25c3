#include "record/export.hpp"

#include <cstdio>

#include "npgpu/version.hpp"

namespace npgpu {
namespace {

// NetPIPE 3.x divides bits per second by 1024 x 1024 and calls it Mbps; kept for its plots.
constexpr double kNetpipeMegabit = 1024.0 * 1024.0;

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string number(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

std::string np_out_text(const std::vector<RunData>& runs) {
  std::string out = std::string("# npgpu ") + kVersion +
                    ", NetPIPE 3.x np.out columns: bytes per transfer; throughput in NetPIPE 3.x Mbps "
                    "(bits/s / 2^20); one-way time per transfer in s (12 decimals where NetPIPE prints 8)\n";
  bool first = true;
  for (const RunData& run : runs)
    for (const CurveData& curve : run.curves) {
      if (!first) out += "\n\n";
      first = false;
      out += "# " + run.file + ":" + run.group + " " + curve.name + ": " + run.module + " " + run.pattern + ", " +
             run.headline + " time, run " + status_name(run.status) + "\n";
      for (std::size_t i = 0; i < curve.bytes.size(); ++i)
        out += number("%8.0f", curve.bytes_per_transfer[i]) + " " +
               number("%lf", curve.throughput(i) * 8 / kNetpipeMegabit) + " " + number("%14.12f", curve.seconds[i]) + "\n";
    }
  return out;
}

std::string csv_text(const std::vector<RunData>& runs) {
  std::string out =
      "file,run,module,pattern,status,curve,host,peer_host,bytes,bytes_per_transfer,headline,time_s,"
      "throughput_B_per_s,time_min_s,time_max_s,trials\n";
  for (const RunData& run : runs)
    for (const CurveData& curve : run.curves)
      for (std::size_t i = 0; i < curve.bytes.size(); ++i) {
        const auto column = [&](const std::vector<double>& values) {
          return i < values.size() ? number("%.12g", values[i]) : std::string();
        };
        out += csv_field(run.file) + "," + run.group + "," + csv_field(run.module) + "," + run.pattern + "," +
               status_name(run.status) + "," + csv_field(curve.name) + "," + csv_field(curve.host) + "," +
               csv_field(curve.peer_host) + "," + number("%.0f", curve.bytes[i]) + "," +
               number("%.0f", curve.bytes_per_transfer[i]) + "," + run.headline + "," + number("%.12g", curve.seconds[i]) +
               "," + number("%.12g", curve.throughput(i)) + "," + column(curve.seconds_min) + "," +
               column(curve.seconds_max) + "," + column(curve.trials) + "\n";
      }
  return out;
}

}  // namespace npgpu
