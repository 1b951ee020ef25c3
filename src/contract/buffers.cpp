#include "npgpu/buffers.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

constexpr std::uint64_t kPage = 4096;
constexpr std::uint64_t kCacheLine = 64;

std::uint64_t round_up(std::uint64_t n, std::uint64_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

// One byte of the check pattern: a cheap hash of the position and the seed.
std::byte pattern_byte(std::uint64_t index, std::uint64_t seed) {
  std::uint64_t x = (index + 1) * 0x9E3779B97F4A7C15ull ^ seed;
  x ^= x >> 29;
  return static_cast<std::byte>(x & 0xFF);
}

}  // namespace

void HostBuffer::Free::operator()(std::byte* p) const { std::free(p); }

HostBuffer::HostBuffer(std::uint64_t bytes) : size_(bytes) {
  void* memory = std::aligned_alloc(kPage, round_up(std::max<std::uint64_t>(bytes, 1), kPage));
  if (memory == nullptr) throw std::bad_alloc();
  data_.reset(static_cast<std::byte*>(memory));
  std::memset(memory, 0xA5, bytes);  // first touch now, not inside a timed trial
}

std::uint64_t Rotation::cold_offset(std::uint64_t bytes, std::uint64_t index) const {
  // Page-aligned slots for page-sized messages keep copies on their fastest path.
  const std::uint64_t stride = round_up(std::max<std::uint64_t>(bytes, 1), bytes >= kPage ? kPage : kCacheLine);
  const std::uint64_t slots = pool_ / stride;
  return slots < 2 ? 0 : (index % slots) * stride;
}

std::uint64_t rotation_pool_bytes(std::uint64_t max_bytes, std::uint64_t cache_bytes, bool cold) {
  if (!cold) return max_bytes;
  const std::uint64_t span = std::clamp<std::uint64_t>(2 * cache_bytes, 64 * MiB, 256 * MiB);
  return std::max(max_bytes, span);
}

std::uint64_t host_pool_bytes(const RunView& run, std::uint64_t max_bytes) {
  return rotation_pool_bytes(max_bytes, run.cache_bytes, run.cache == CacheState::cold);
}

void fill_pattern(std::byte* message, std::uint64_t bytes, std::uint64_t seed) {
  for (std::uint64_t i = 0; i < bytes; ++i) message[i] = pattern_byte(i, seed);
}

std::uint64_t first_mismatch(const std::byte* message, std::uint64_t bytes, std::uint64_t seed) {
  for (std::uint64_t i = 0; i < bytes; ++i)
    if (message[i] != pattern_byte(i, seed)) return i;
  return bytes;
}

}  // namespace npgpu
