// GPU message memory: the --check pattern is written and read through a host buffer, so what
// moves between the ranks is the GPU memory itself.
#include "cuda_common/cuda_check.hpp"
#include "cuda_common/memory.hpp"
#include "pair/message_memory.hpp"

namespace npgpu {
namespace {

class DeviceMessageMemory final : public MessageMemory {
 public:
  DeviceMessageMemory(std::uint64_t pool_bytes, bool cold, std::uint64_t max_bytes)
      : send_(pool_bytes), receive_(pool_bytes), staging_(max_bytes) {
    set_pools(send_.data(), receive_.data(), pool_bytes, cold);
    // The transports copy on streams of their own, which do not wait for the default stream.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after zeroing the pools)");
  }

  bool on_device() const override { return true; }

  void fill(std::byte* message, std::uint64_t bytes, std::uint64_t seed) override {
    fill_pattern(staging_.data(), bytes, seed);
    check_cuda(cudaMemcpy(message, staging_.data(), bytes, cudaMemcpyHostToDevice), "writing the check pattern to the GPU");
    // From pageable memory cudaMemcpy may return before the GPU has it all; the transports'
    // streams do not wait for it.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after writing the check pattern)");
  }

  std::uint64_t first_mismatch(const std::byte* message, std::uint64_t bytes, std::uint64_t seed) override {
    check_cuda(cudaMemcpy(staging_.data(), message, bytes, cudaMemcpyDeviceToHost), "reading a message back from the GPU");
    return npgpu::first_mismatch(staging_.data(), bytes, seed);
  }

  void flip_byte(std::byte* message, std::uint64_t offset) override { flip_device_byte(message + offset); }

 private:
  DeviceBuffer send_, receive_;
  HostBuffer staging_;
};

}  // namespace

std::unique_ptr<MessageMemory> make_device_message_memory(std::uint64_t pool_bytes, bool cold, std::uint64_t max_bytes) {
  return std::make_unique<DeviceMessageMemory>(pool_bytes, cold, max_bytes);
}

}  // namespace npgpu
