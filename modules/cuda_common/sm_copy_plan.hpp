#pragma once
// How the SM copy kernel divides a copy: 16-byte vectors over a grid that fills the chip, then the
// last n % 16 bytes one by one, so it moves exactly n bytes. No CUDA here: tested on any machine.
#include <algorithm>
#include <cstdint>

namespace npgpu {

inline constexpr std::uint64_t kSmCopyVectorBytes = 16;
inline constexpr unsigned kSmCopyThreads = 512;       // per block
inline constexpr unsigned kSmCopyBlocksPerSm = 4;     // 2048 threads: a full Hopper or Ampere SM

struct SmCopySplit {
  std::uint64_t vectors;     // 16-byte loads and stores
  std::uint64_t tail_bytes;  // single bytes after the last vector, fewer than 16
  constexpr std::uint64_t bytes_moved() const { return vectors * kSmCopyVectorBytes + tail_bytes; }
};

constexpr SmCopySplit split_sm_copy(std::uint64_t bytes) {
  return {bytes / kSmCopyVectorBytes, bytes % kSmCopyVectorBytes};
}

// Blocks for a copy: enough to give every thread a vector, at most what keeps every SM full.
constexpr unsigned sm_copy_blocks(int multiprocessors, std::uint64_t vectors) {
  const std::uint64_t full_chip = static_cast<std::uint64_t>(std::max(multiprocessors, 1)) * kSmCopyBlocksPerSm;
  const std::uint64_t needed = (std::max<std::uint64_t>(vectors, 1) + kSmCopyThreads - 1) / kSmCopyThreads;
  return static_cast<unsigned>(std::min(full_chip, needed));
}

}  // namespace npgpu
