#include "pair/message_memory.hpp"

#include "npgpu/fault.hpp"
#include "npgpu/sysinfo.hpp"

namespace npgpu {

std::uint64_t host_pool_bytes(const RunOptions& options, std::uint64_t max_bytes) {
  return rotation_pool_bytes(max_bytes, last_level_cache_bytes(), options.cache == CacheState::cold);
}

namespace {

class HostMessageMemory final : public MessageMemory {
 public:
  HostMessageMemory(std::uint64_t pool_bytes, bool cold) : send_(pool_bytes), receive_(pool_bytes) {
    set_pools(send_.data(), receive_.data(), pool_bytes, cold);
  }

  bool on_device() const override { return false; }

  void fill(std::byte* message, std::uint64_t bytes, std::uint64_t seed) override { fill_pattern(message, bytes, seed); }

  std::uint64_t first_mismatch(const std::byte* message, std::uint64_t bytes, std::uint64_t seed) override {
    return npgpu::first_mismatch(message, bytes, seed);
  }

  void flip_byte(std::byte* message, std::uint64_t offset) override { flip_host_byte(message, offset); }

 private:
  HostBuffer send_, receive_;
};

}  // namespace

std::unique_ptr<MessageMemory> make_host_message_memory(std::uint64_t pool_bytes, bool cold) {
  return std::make_unique<HostMessageMemory>(pool_bytes, cold);
}

}  // namespace npgpu
