#include <mpi.h>
#include <sys/time.h>

#include <algorithm>
#include <ctime>
#include <limits>
#include <string>

#include "npgpu/clock.hpp"
#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

// Readings count from the clock's creation: seconds since 1970 as a double would lose the
// sub-microsecond digits (a double near 1.7e9 steps by 0.24 us).
class WallClock final : public Clock {
 public:
  std::string_view name() const override { return "wall"; }
  std::string_view description() const override { return "clock_gettime(CLOCK_MONOTONIC)"; }
  double now() const override {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec - origin_) + 1e-9 * static_cast<double>(t.tv_nsec);
  }

 private:
  time_t origin_ = [] {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec;
  }();
};

class GettimeofdayClock final : public Clock {
 public:
  std::string_view name() const override { return "gettimeofday"; }
  std::string_view description() const override { return "gettimeofday (wall time, microseconds)"; }
  double now() const override {
    timeval t{};
    gettimeofday(&t, nullptr);
    return static_cast<double>(t.tv_sec - origin_) + 1e-6 * static_cast<double>(t.tv_usec);
  }

 private:
  time_t origin_ = [] {
    timeval t{};
    gettimeofday(&t, nullptr);
    return t.tv_sec;
  }();
};

class MpiClock final : public Clock {
 public:
  std::string_view name() const override { return "mpi"; }
  std::string_view description() const override { return "MPI_Wtime"; }
  double now() const override { return MPI_Wtime() - origin_; }

 private:
  double origin_ = MPI_Wtime();
};

}  // namespace

std::unique_ptr<Clock> make_clock(std::string_view name) {
  if (name == "wall") return std::make_unique<WallClock>();
  if (name == "gettimeofday") return std::make_unique<GettimeofdayClock>();
  if (name == "mpi") return std::make_unique<MpiClock>();
  throw UsageError("--timer '" + std::string(name) + "': unknown timer; choose one of " + kClockNames);
}

double measure_resolution(const Clock& clock) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 200; ++i) {
    const double start = clock.now();
    double next = clock.now();
    for (int spins = 0; next == start && spins < 10'000'000; ++spins) next = clock.now();
    if (next > start) best = std::min(best, next - start);
  }
  return best;
}

}  // namespace npgpu
