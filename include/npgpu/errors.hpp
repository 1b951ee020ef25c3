#pragma once
// The two ways a run can fail, and the exit code each one gives.
#include <stdexcept>

namespace npgpu {

// Bad input from the user: reported as one line, exit code 2, nothing written.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A failure while measuring (corrupt data, a library call that failed): exit code 1.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A measurement failure every rank learned of in the same collective step (corrupt data): every
// rank stops cleanly, and no rank has to be aborted.
struct FailedOnEveryRank : RunError {
  using RunError::RunError;
};

inline constexpr int kExitUsage = 2;
inline constexpr int kExitRunError = 1;

}  // namespace npgpu
