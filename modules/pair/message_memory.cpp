#include "pair/message_memory.hpp"

#include <cstring>

#include "npgpu/fault.hpp"

namespace npgpu {

namespace {

class HostMessageMemory final : public MessageMemory {
 public:
  // `receive_pool`: the caller's, or null for one of its own.
  HostMessageMemory(std::uint64_t pool_bytes, bool cold, std::byte* receive_pool) : send_(pool_bytes) {
    if (receive_pool == nullptr) {
      receive_ = HostBuffer(pool_bytes);
      receive_pool = receive_.data();
    } else {
      std::memset(receive_pool, 0xA5, pool_bytes);  // first touch now, as HostBuffer does
    }
    set_pools(send_.data(), receive_pool, pool_bytes, cold);
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
  return std::make_unique<HostMessageMemory>(pool_bytes, cold, nullptr);
}

std::unique_ptr<MessageMemory> make_host_message_memory(std::uint64_t pool_bytes, bool cold, std::byte* receive_pool) {
  return std::make_unique<HostMessageMemory>(pool_bytes, cold, receive_pool);
}

}  // namespace npgpu
