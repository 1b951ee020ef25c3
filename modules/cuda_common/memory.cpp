#include "memory.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "cuda_check.hpp"

namespace npgpu {

DeviceBuffer::DeviceBuffer(std::uint64_t bytes) : size_(bytes) {
  void* memory = nullptr;
  check_cuda(cudaMalloc(&memory, bytes), "cudaMalloc");
  data_ = static_cast<std::byte*>(memory);
  check_cuda(cudaMemset(data_, 0, bytes), "cudaMemset");
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) cudaFree(data_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  return *this;
}

HostMemoryKind host_memory_kind(const std::string& name) {
  if (name == "pageable") return HostMemoryKind::pageable;
  if (name == "write-combined") return HostMemoryKind::write_combined;
  if (name == "registered") return HostMemoryKind::registered;
  return HostMemoryKind::pinned;
}

const char* host_memory_description(HostMemoryKind kind) {
  switch (kind) {
    case HostMemoryKind::pageable: return "pageable (malloc): the driver stages it through pinned buffers";
    case HostMemoryKind::pinned: return "pinned (cudaMallocHost)";
    case HostMemoryKind::write_combined: return "pinned write-combined (cudaHostAllocWriteCombined): fast to the GPU, slow for the CPU to read";
    case HostMemoryKind::registered: return "registered (malloc, then cudaHostRegister)";
  }
  return "";
}

HostMemory::HostMemory(std::uint64_t bytes, HostMemoryKind kind) : size_(bytes), kind_(kind) {
  void* memory = nullptr;
  switch (kind) {
    case HostMemoryKind::pinned: check_cuda(cudaMallocHost(&memory, bytes), "cudaMallocHost"); break;
    case HostMemoryKind::write_combined:
      check_cuda(cudaHostAlloc(&memory, bytes, cudaHostAllocWriteCombined | cudaHostAllocMapped),
                 "cudaHostAlloc(WriteCombined)");
      break;
    case HostMemoryKind::pageable:
    case HostMemoryKind::registered:
      memory = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
      if (memory == nullptr) throw std::bad_alloc();
      break;
  }
  data_ = static_cast<std::byte*>(memory);
  std::memset(data_, 0, bytes);  // first touch here, on the NUMA node of the thread's cores
  if (kind == HostMemoryKind::registered) {
    // Mapped: the SM copy kernel reaches it too.
    const cudaError_t status = cudaHostRegister(data_, bytes, cudaHostRegisterMapped);
    if (status != cudaSuccess) {
      std::free(data_);
      data_ = nullptr;
      check_cuda(status, "cudaHostRegister");
    }
  }
}

std::byte* HostMemory::device_view() const {
  void* view = nullptr;
  check_cuda(cudaHostGetDevicePointer(&view, data_, 0), "cudaHostGetDevicePointer");
  return static_cast<std::byte*>(view);
}

int numa_node_of(const void* address) {
  // move_pages with no target nodes only reports where each page is.
  void* page = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(address) / 4096 * 4096);
  int node = -1;
  if (syscall(SYS_move_pages, 0, 1UL, &page, nullptr, &node, 0) != 0) return -1;
  return node;
}

void HostMemory::release() {
  if (data_ == nullptr) return;
  switch (kind_) {
    case HostMemoryKind::pinned:
    case HostMemoryKind::write_combined: cudaFreeHost(data_); break;
    case HostMemoryKind::registered: cudaHostUnregister(data_); std::free(data_); break;
    case HostMemoryKind::pageable: std::free(data_); break;
  }
  data_ = nullptr;
}

HostMemory::~HostMemory() { release(); }

HostMemory::HostMemory(HostMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), kind_(other.kind_) {}

HostMemory& HostMemory::operator=(HostMemory&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(kind_, other.kind_);
  return *this;
}

void flip_device_byte(std::byte* address) {
  std::byte value{};
  check_cuda(cudaMemcpy(&value, address, 1, cudaMemcpyDeviceToHost), "cudaMemcpy(fault switch read)");
  value ^= std::byte{0xFF};
  check_cuda(cudaMemcpy(address, &value, 1, cudaMemcpyHostToDevice), "cudaMemcpy(fault switch write)");
}

}  // namespace npgpu
