#pragma once
// GPU time of queued work, without the host's enqueue cost: nvbandwidth's method. A kernel spins
// on a host flag (the closed gate) while the host queues a start event, the work and a stop event
// behind it; the host then opens the gate and the events time the work alone. The launch queue is
// finite, and a full one would block the host behind the closed gate, so at most
// kMaxQueuedOperations are queued behind one gate: longer work runs in batches, whose times add up.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "streams.hpp"

namespace npgpu {

struct GpuStream {
  int device;
  cudaStream_t stream;
};

class GatedTimer {
 public:
  static constexpr std::uint64_t kMaxQueuedOperations = 128;
  static constexpr int kGateTimeoutSeconds = 10;

  // The first stream carries the gate and the events; the others (on any GPU) start when it opens
  // and are waited for before the stop event.
  explicit GatedTimer(std::vector<GpuStream> streams);
  ~GatedTimer();
  GatedTimer(const GatedTimer&) = delete;
  GatedTimer& operator=(const GatedTimer&) = delete;

  // Calls enqueue(i) for i in [0, items), each queueing `operations_per_item` operations (copies,
  // kernels, event records and waits) on the streams; returns the GPU seconds they took, summed
  // over batches. RunError if the gate opened by itself (the host took longer than the timeout).
  double time(std::uint64_t items, std::uint64_t operations_per_item,
              const std::function<void(std::uint64_t)>& enqueue);

 private:
  double time_batch(std::uint64_t first, std::uint64_t count, const std::function<void(std::uint64_t)>& enqueue);

  std::vector<GpuStream> streams_;
  int* gate_ = nullptr;         // [0] open, [1] the spin kernel gave up; mapped pinned memory
  int* gate_on_gpu_ = nullptr;
  Event start_, stop_;
  std::vector<Event> joined_;   // one per further stream: its work is done
};

}  // namespace npgpu
