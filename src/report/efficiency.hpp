#pragma once
// How much of a link's theoretical peak a curve reached, judged with the seeds' yardstick:
// 70-80% of the theoretical bandwidth is very good.
#include <string>

namespace npgpu {

// "excellent", "very good", "fair", "poor", or "above the peak" (the peak cannot describe the
// path, or the timing is off); `fraction` is measured / theoretical.
std::string efficiency_grade(double fraction);

// One sentence: the grade and what it means.
std::string efficiency_verdict(double fraction);

}  // namespace npgpu
