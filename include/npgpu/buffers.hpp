#pragma once
// Host buffers, cache-cold rotation and data tags shared by the modules.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "npgpu/run_view.hpp"

namespace npgpu {

// Page-aligned host memory, touched when allocated so page faults stay out of the timing.
class HostBuffer {
 public:
  HostBuffer() = default;
  explicit HostBuffer(std::uint64_t bytes);
  std::byte* data() const { return data_.get(); }
  std::uint64_t size() const { return size_; }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> data_;
  std::uint64_t size_ = 0;
};

// Cache-cold buffers: successive messages start at successive offsets of a pool larger than the
// caches, so each one comes from memory, not from a cache a previous repetition warmed.
// Cache-warm (or a message too big for two slots): every message at offset 0.
class Rotation {
 public:
  Rotation() = default;
  Rotation(std::uint64_t pool_bytes, bool cold) : pool_(pool_bytes), cold_(cold) {}
  // Inline: warm, it is on every repetition's path and does nothing.
  std::uint64_t offset(std::uint64_t bytes, std::uint64_t index) const { return cold_ ? cold_offset(bytes, index) : 0; }

 private:
  std::uint64_t cold_offset(std::uint64_t bytes, std::uint64_t index) const;

  std::uint64_t pool_ = 0;
  bool cold_ = false;
};

// Pool size for messages up to max_bytes: room to rotate over twice the cache (at least 64 MiB,
// at most 256 MiB) when cold, just the largest message when warm.
std::uint64_t rotation_pool_bytes(std::uint64_t max_bytes, std::uint64_t cache_bytes, bool cold);

// The same for host messages under the run's --cache, past this host's last-level cache.
std::uint64_t host_pool_bytes(const RunView& run, std::uint64_t max_bytes);

// The cheap per-message tag: the first and last byte of every message carry a counter value.
// Inline, as they run on every repetition.
inline void stamp(std::byte* message, std::uint64_t bytes, std::uint8_t tag) {
  message[0] = static_cast<std::byte>(tag);
  message[bytes - 1] = static_cast<std::byte>(tag);
}
// The first tag byte that does not carry `tag` (0 or bytes - 1), or `bytes` when both do.
inline std::uint64_t untagged_byte(const std::byte* message, std::uint64_t bytes, std::uint8_t tag) {
  if (message[0] != static_cast<std::byte>(tag)) return 0;
  if (message[bytes - 1] != static_cast<std::byte>(tag)) return bytes - 1;
  return bytes;
}

// The full check (--check): every byte from a pattern seeded per message.
void fill_pattern(std::byte* message, std::uint64_t bytes, std::uint64_t seed);
// Index of the first byte that differs from the pattern, or `bytes` when all match.
std::uint64_t first_mismatch(const std::byte* message, std::uint64_t bytes, std::uint64_t seed);

}  // namespace npgpu
