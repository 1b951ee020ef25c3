#pragma once
// A GPU copy pattern as data: which memory each copy of a repetition leaves and reaches, and on
// which stream it is queued. No CUDA here, so every direction's shape is tested without a GPU.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "npgpu/module.hpp"
#include "npgpu/pattern.hpp"

namespace npgpu {

struct CopyLeg {
  std::size_t from;    // index of the source end
  std::size_t to;      // index of the destination end
  std::size_t stream;  // index of the stream the copy is queued on
};

// The copies of one repetition. Chained: each leg starts when the previous one has ended (a
// round trip); otherwise the legs run at once, each on its own stream.
struct CopyLegs {
  std::vector<CopyLeg> legs;
  bool chained = false;
};

// Streams the legs are queued on (indices 0 to count - 1).
inline std::size_t stream_count(const CopyLegs& legs) {
  std::size_t count = 0;
  for (const CopyLeg& leg : legs.legs) count = std::max(count, leg.stream + 1);
  return count;
}

// One repetition of a GPU copy pattern in transfers: a round trip is two one-way copies, a
// stream repetition one copy, a bidirectional one a copy each way counted together.
inline TransferShape copy_shape(Pattern pattern, std::uint64_t bytes) {
  const auto n = static_cast<double>(bytes);
  switch (pattern) {
    case Pattern::pingpong: return {2, n};
    case Pattern::stream: return {1, n};
    case Pattern::bidir: return {1, 2 * n};
  }
  return {1, n};
}

}  // namespace npgpu
