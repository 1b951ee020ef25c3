#pragma once
// GPU memory and the four kinds of host memory a GPU copy can use, each freed the way it was taken.
#include <cstddef>
#include <cstdint>
#include <string>

namespace npgpu {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::uint64_t bytes);  // cudaMalloc on the current GPU, zeroed
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  std::byte* data() const { return data_; }
  std::uint64_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::uint64_t size_ = 0;
};

enum class HostMemoryKind { pageable, pinned, write_combined, registered };
HostMemoryKind host_memory_kind(const std::string& name);  // the --memory names
const char* host_memory_description(HostMemoryKind kind);

// The NUMA node holding the page at `address`, or -1 when the kernel does not say (pages the
// CUDA driver pinned itself may not be visible to move_pages).
int numa_node_of(const void* address);

// The test-only fault switch on GPU memory: one byte read back, flipped and written again.
void flip_device_byte(std::byte* address);

class HostMemory {
 public:
  HostMemory() = default;
  HostMemory(std::uint64_t bytes, HostMemoryKind kind);  // allocated and touched by this thread
  ~HostMemory();
  HostMemory(HostMemory&& other) noexcept;
  HostMemory& operator=(HostMemory&& other) noexcept;
  std::byte* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  HostMemoryKind kind() const { return kind_; }
  // The address a kernel uses to reach it (pinned kinds only).
  std::byte* device_view() const;

 private:
  void release();
  std::byte* data_ = nullptr;
  std::uint64_t size_ = 0;
  HostMemoryKind kind_ = HostMemoryKind::pageable;
};

}  // namespace npgpu
