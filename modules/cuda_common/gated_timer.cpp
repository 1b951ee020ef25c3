#include "gated_timer.hpp"

#include <algorithm>
#include <atomic>

#include "cuda_check.hpp"
#include "kernels.hpp"

namespace npgpu {
namespace {

void store(int* flag, int value) { std::atomic_ref<int>(*flag).store(value, std::memory_order_seq_cst); }
int load(int* flag) { return std::atomic_ref<int>(*flag).load(std::memory_order_seq_cst); }

}  // namespace

GatedTimer::GatedTimer(std::vector<GpuStream> streams) : streams_(std::move(streams)) {
  const int device = streams_.front().device;
  // Portable: the gate is seen from every GPU's context.
  check_cuda(cudaHostAlloc(reinterpret_cast<void**>(&gate_), 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable),
             "cudaHostAlloc(gate)");
  check_cuda(cudaHostGetDevicePointer(reinterpret_cast<void**>(&gate_on_gpu_), gate_, 0), "cudaHostGetDevicePointer(gate)");
  start_ = Event(device, cudaEventDefault);
  stop_ = Event(device, cudaEventDefault);
  for (std::size_t i = 1; i < streams_.size(); ++i) joined_.emplace_back(streams_[i].device, cudaEventDisableTiming);
  for (const GpuStream& stream : streams_) {
    const CurrentDevice current(stream.device);
    prepare_kernels();
  }
}

GatedTimer::~GatedTimer() {
  if (gate_ != nullptr) cudaFreeHost(gate_);
}

double GatedTimer::time(std::uint64_t items, std::uint64_t operations_per_item,
                        const std::function<void(std::uint64_t)>& enqueue) {
  const std::uint64_t per_batch = std::max<std::uint64_t>(1, kMaxQueuedOperations / std::max<std::uint64_t>(operations_per_item, 1));
  double seconds = 0;
  for (std::uint64_t first = 0; first < items; first += per_batch)
    seconds += time_batch(first, std::min(per_batch, items - first), enqueue);
  return seconds;
}

double GatedTimer::time_batch(std::uint64_t first, std::uint64_t count,
                              const std::function<void(std::uint64_t)>& enqueue) {
  const GpuStream& gated = streams_.front();
  store(&gate_[0], 0);
  store(&gate_[1], 0);
  {
    const CurrentDevice current(gated.device);
    launch_gate_spin(gate_on_gpu_, kGateTimeoutSeconds, gated.stream);
    check_cuda(cudaEventRecord(start_.get(), gated.stream), "cudaEventRecord(start)");
  }
  try {
    for (std::size_t i = 1; i < streams_.size(); ++i)
      check_cuda(cudaStreamWaitEvent(streams_[i].stream, start_.get(), 0), "cudaStreamWaitEvent(start)");
    for (std::uint64_t item = first; item < first + count; ++item) enqueue(item);
    for (std::size_t i = 1; i < streams_.size(); ++i) {
      check_cuda(cudaEventRecord(joined_[i - 1].get(), streams_[i].stream), "cudaEventRecord(joined)");
      check_cuda(cudaStreamWaitEvent(gated.stream, joined_[i - 1].get(), 0), "cudaStreamWaitEvent(joined)");
    }
    check_cuda(cudaEventRecord(stop_.get(), gated.stream), "cudaEventRecord(stop)");
  } catch (...) {
    store(&gate_[0], 1);  // never leave the spin kernel holding the GPU
    throw;
  }
  store(&gate_[0], 1);
  check_cuda(cudaEventSynchronize(stop_.get()), "cudaEventSynchronize(stop)");
  if (load(&gate_[1]) != 0)
    throw RunError("the timing gate opened by itself after " + std::to_string(kGateTimeoutSeconds) +
                   " s: queueing the copies took longer, so event times would include the host's work");
  float milliseconds = 0;
  check_cuda(cudaEventElapsedTime(&milliseconds, start_.get(), stop_.get()), "cudaEventElapsedTime");
  return milliseconds * 1e-3;
}

}  // namespace npgpu
