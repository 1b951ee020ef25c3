#pragma once
// The copies of a GPU measurement, timed the two ways users meet them: queued asynchronously
// behind the timing gate, or as one blocking call after another. cudaMemcpy, cuMemcpy and p2p
// share it; they differ in where the ends lie and in how one copy is made (CopyMethod).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "copy_legs.hpp"
#include "gated_timer.hpp"
#include "npgpu/buffers.hpp"
#include "npgpu/clock.hpp"
#include "npgpu/fault.hpp"
#include "npgpu/module.hpp"
#include "streams.hpp"

namespace npgpu {

inline constexpr int kHostMemory = -1;

// A pool that copies leave or reach, rotated for cache-cold runs.
struct CopyEnd {
  int device = kHostMemory;      // the GPU holding it, or kHostMemory
  std::byte* address = nullptr;  // what copies are given (a kernel reaching host memory gets its device view)
  std::byte* host = nullptr;     // the CPU's view of host memory; null on a GPU
  Rotation rotation;
};

struct CopyCall {
  std::byte* to;
  int to_device;
  const std::byte* from;
  int from_device;
  std::uint64_t bytes;
};

// How one copy is made.
class CopyMethod {
 public:
  virtual ~CopyMethod() = default;
  virtual void enqueue(const CopyCall& copy, cudaStream_t stream) const = 0;  // on the current GPU
  virtual void blocking(const CopyCall& copy) const = 0;  // returns when the API says the copy is done
};

// A copy engine through the CUDA runtime: cudaMemcpyAsync / cudaMemcpy with the direction's kind,
// and between two GPUs cudaMemcpyPeerAsync / cudaMemcpyPeer, which stage through host memory
// where the GPUs have no peer access.
class RuntimeCopy final : public CopyMethod {
 public:
  void enqueue(const CopyCall& copy, cudaStream_t stream) const override;
  void blocking(const CopyCall& copy) const override;
};

// The SM copy kernel (kernels.hpp) on the current GPU; blocking: launched, then waited for.
class KernelCopy final : public CopyMethod {
 public:
  KernelCopy();  // reads every GPU's multiprocessor count once
  void enqueue(const CopyCall& copy, cudaStream_t stream) const override;
  void blocking(const CopyCall& copy) const override;

 private:
  std::vector<int> multiprocessors_;  // by GPU index
};

// For the record: the kernel's grid on a GPU with this many SMs, and the bytes it moves.
std::string sm_copy_description(int multiprocessors);

// What each timer spans, for the record (alt_timer and the placement facts).
inline constexpr const char* kGatedEventsTimer =
    "cudaEvents queued behind a spin kernel that holds the stream until the host has queued every copy "
    "(at most 128 per batch, batch times summed): GPU time of the copies alone";
inline constexpr const char* kGatedHostTimer =
    "host clock (--timer) around the same trial: queueing each batch behind the closed gate, opening it, "
    "and waiting for the batch to finish";
inline constexpr const char* kBlockingHostTimer =
    "host clock (--timer) around the blocking calls, as user code sees them, until the last copy has completed";
inline constexpr const char* kBlockingEventsTimer =
    "cudaEvents on the default stream before the first and after the last blocking call of the trial "
    "(GPU time, gaps while the host issues each call included)";

class CopyRoutine {
 public:
  // `label` names the path in error messages ("cudaMemcpy h2d").
  CopyRoutine(std::string label, std::vector<CopyEnd> ends, CopyLegs legs, std::vector<GpuStream> streams,
              const CopyMethod& method);

  // Primary: events behind the gate; alt: the host clock (kGatedEventsTimer, kGatedHostTimer).
  TrialTiming run_gated(std::uint64_t bytes, std::uint64_t reps, const Clock& clock);
  // Primary: the host clock; alt: events (kBlockingHostTimer, kBlockingEventsTimer). One GPU only.
  TrialTiming run_blocking(std::uint64_t bytes, std::uint64_t reps, const Clock& clock);

  // One repetition of `bytes` made the way the trials make it, every byte checked on the host:
  // each chain of legs starts from its own pattern and its last destination must hold it.
  // `flip`: the test-only fault switch, applied where the copy landed.
  void check(std::uint64_t bytes, std::uint64_t seed, bool gated, const std::optional<ByteFlip>& flip);

 private:
  CopyCall call(const CopyLeg& leg, std::uint64_t bytes, std::uint64_t slot) const;
  void enqueue_rep(std::uint64_t bytes, std::uint64_t slot);
  void blocking_rep(std::uint64_t bytes, std::uint64_t slot);
  bool crosses_streams(std::size_t from_leg, std::size_t to_leg) const;
  std::byte* staging(std::uint64_t bytes);
  void write_pattern(const CopyEnd& end, std::uint64_t bytes, std::uint64_t seed);
  void expect_pattern(const CopyEnd& end, std::uint64_t bytes, std::uint64_t seed, const std::optional<ByteFlip>& flip);

  std::string label_;
  std::vector<CopyEnd> ends_;
  CopyLegs legs_;
  std::vector<GpuStream> streams_;
  const CopyMethod& method_;
  GatedTimer gated_timer_;
  std::uint64_t operations_per_rep_ = 0;
  std::vector<Event> leg_done_;  // chained legs on different streams: the next waits for this
  Event blocking_start_, blocking_stop_;
  HostBuffer staging_;
  std::uint64_t counter_ = 0;
};

}  // namespace npgpu
