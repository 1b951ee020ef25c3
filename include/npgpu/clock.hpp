#pragma once
// Host clocks a module may time with. Each reports its measured resolution, which the run records.
#include <memory>
#include <string_view>

namespace npgpu {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual double now() const = 0;  // seconds from an arbitrary origin
};

// "wall" (clock_gettime CLOCK_MONOTONIC), "gettimeofday" (as old NetPIPE and the seeds time),
// "mpi" (MPI_Wtime). Throws UsageError for any other name.
std::unique_ptr<Clock> make_clock(std::string_view name);
inline constexpr const char* kClockNames = "wall, gettimeofday, mpi";

// The smallest nonzero step between two consecutive readings, over many readings.
double measure_resolution(const Clock& clock);

}  // namespace npgpu
