#pragma once
// Streams and events that belong to one GPU, released the way they were taken.
#include <cuda_runtime.h>

namespace npgpu {

// Makes `device` current for this scope and restores the previous one after.
class CurrentDevice {
 public:
  explicit CurrentDevice(int device);
  ~CurrentDevice();
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int previous_ = 0;
};

// A non-blocking stream: it never waits for the legacy default stream.
class Stream {
 public:
  Stream() = default;
  explicit Stream(int device);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  cudaStream_t get() const { return stream_; }
  int device() const { return device_; }

 private:
  cudaStream_t stream_ = nullptr;
  int device_ = 0;
};

class Event {
 public:
  Event() = default;
  Event(int device, unsigned flags);  // cudaEventDefault to time with it, cudaEventDisableTiming to order
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace npgpu
