#pragma once
// A non-blocking CUDA stream owned like any other resource. Non-blocking: the pair transports'
// copies must not wait on (or be waited on by) the default stream.
#include <cuda_runtime.h>

#include <utility>

#include "cuda_common/cuda_check.hpp"

namespace npgpu {

class CudaStream {
 public:
  CudaStream() = default;
  explicit CudaStream(const char* purpose) {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), purpose);
  }
  ~CudaStream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(CudaStream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace npgpu
