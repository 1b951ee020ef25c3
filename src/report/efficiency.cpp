#include "report/efficiency.hpp"

#include <iterator>

namespace npgpu {
namespace {

struct Grade {
  double from;  // fraction of the peak where the grade starts
  const char* name;
  const char* meaning;
};

// Measurement noise lets a good link show a hair over its peak; beyond 2% something is wrong.
constexpr Grade kGrades[] = {
    {1.02, "above the peak", "more than the theoretical peak: that peak does not describe this path, or the timing is off"},
    {0.80, "excellent", "above the 70-80% of theoretical that counts as very good"},
    {0.70, "very good", "within the 70-80% of theoretical that counts as very good"},
    {0.50, "fair", "below the 70-80% of theoretical that counts as very good: something besides the link costs time"},
    {0.00, "poor", "under half the theoretical peak: something other than the link limits it"},
};

const Grade& grade_of(double fraction) {
  for (const Grade& grade : kGrades)
    if (fraction >= grade.from) return grade;
  return kGrades[std::size(kGrades) - 1];
}

}  // namespace

std::string efficiency_grade(double fraction) { return grade_of(fraction).name; }

std::string efficiency_verdict(double fraction) {
  const Grade& grade = grade_of(fraction);
  return std::string(grade.name) + ": " + grade.meaning;
}

}  // namespace npgpu
