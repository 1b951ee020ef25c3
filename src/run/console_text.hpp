#pragma once
// Bits of text the console reporter's files share.
#include <cstdio>
#include <string>

#include "results/run_record.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

inline std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g%%", 100 * fraction);
  return text;
}

inline std::string progress_text(const Progress& progress) {
  char text[64];
  std::snprintf(text, sizeof text, "[%3zu/%zu]", progress.done, progress.total);
  return text;
}

inline std::string time_left(const Progress& progress) {
  const std::string left = "~" + format_seconds(progress.seconds_left) + " left";
  if (progress.done < progress.total) return left;
  if (progress.measured_again == 0) return progress.seconds_left > 0 ? left : "done";  // > 0: a run to follow
  return left + ": " + std::to_string(progress.measured_again) + " sizes measured again";
}

}  // namespace npgpu
