#include "streams.hpp"

#include <utility>

#include "cuda_check.hpp"

namespace npgpu {

CurrentDevice::CurrentDevice(int device) {
  check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
}

CurrentDevice::~CurrentDevice() { cudaSetDevice(previous_); }

Stream::Stream(int device) : device_(device) {
  const CurrentDevice current(device);
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
}

Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

Stream::Stream(Stream&& other) noexcept
    : stream_(std::exchange(other.stream_, nullptr)), device_(other.device_) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  std::swap(stream_, other.stream_);
  std::swap(device_, other.device_);
  return *this;
}

Event::Event(int device, unsigned flags) {
  const CurrentDevice current(device);
  check_cuda(cudaEventCreateWithFlags(&event_, flags), "cudaEventCreateWithFlags");
}

Event::~Event() {
  if (event_ != nullptr) cudaEventDestroy(event_);
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  std::swap(event_, other.event_);
  return *this;
}

}  // namespace npgpu
