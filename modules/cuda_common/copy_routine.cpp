#include "copy_routine.hpp"

#include "cuda_check.hpp"
#include "gpu.hpp"
#include "kernels.hpp"
#include "memory.hpp"
#include "sm_copy_plan.hpp"

namespace npgpu {
namespace {

cudaMemcpyKind kind_of(const CopyCall& copy) {
  if (copy.from_device == kHostMemory)
    return copy.to_device == kHostMemory ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice;
  return copy.to_device == kHostMemory ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
}

bool between_gpus(const CopyCall& copy) {
  return copy.from_device != kHostMemory && copy.to_device != kHostMemory && copy.from_device != copy.to_device;
}

}  // namespace

void RuntimeCopy::enqueue(const CopyCall& copy, cudaStream_t stream) const {
  if (between_gpus(copy))
    check_cuda(cudaMemcpyPeerAsync(copy.to, copy.to_device, copy.from, copy.from_device, copy.bytes, stream),
               "cudaMemcpyPeerAsync");
  else
    check_cuda(cudaMemcpyAsync(copy.to, copy.from, copy.bytes, kind_of(copy), stream), "cudaMemcpyAsync");
}

void RuntimeCopy::blocking(const CopyCall& copy) const {
  if (between_gpus(copy))
    check_cuda(cudaMemcpyPeer(copy.to, copy.to_device, copy.from, copy.from_device, copy.bytes), "cudaMemcpyPeer");
  else
    check_cuda(cudaMemcpy(copy.to, copy.from, copy.bytes, kind_of(copy)), "cudaMemcpy");
}

KernelCopy::KernelCopy() {
  for (int device = 0; device < cuda_device_count(); ++device) {
    int count = 0;
    check_cuda(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "reading the SM count");
    multiprocessors_.push_back(count);
  }
}

void KernelCopy::enqueue(const CopyCall& copy, cudaStream_t stream) const {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  launch_sm_copy(copy.to, copy.from, copy.bytes, multiprocessors_.at(static_cast<std::size_t>(device)), stream);
}

void KernelCopy::blocking(const CopyCall& copy) const {
  enqueue(copy, nullptr);
  check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
}

std::string sm_copy_description(int multiprocessors) {
  return "SM copy kernel: 16-byte loads and stores, grid-stride over up to " +
         std::to_string(kSmCopyBlocksPerSm * static_cast<unsigned>(multiprocessors)) + " blocks x " + std::to_string(kSmCopyThreads) +
         " threads (" + std::to_string(kSmCopyBlocksPerSm) + " per SM x " + std::to_string(multiprocessors) +
         " SMs); each copy moves exactly its size: size/16 vectors, then size%16 single bytes";
}

CopyRoutine::CopyRoutine(std::string label, std::vector<CopyEnd> ends, CopyLegs legs, std::vector<GpuStream> streams,
                         const CopyMethod& method)
    : label_(std::move(label)), ends_(std::move(ends)), legs_(std::move(legs)), streams_(std::move(streams)),
      method_(method), gated_timer_(streams_),
      blocking_start_(streams_.front().device, cudaEventDefault),
      blocking_stop_(streams_.front().device, cudaEventDefault) {
  const std::size_t n = legs_.legs.size();
  for (std::size_t i = 0; i < n; ++i) {
    const int device = streams_.at(legs_.legs[i].stream).device;
    leg_done_.emplace_back(device, cudaEventDisableTiming);
    operations_per_rep_ += 1 + (crosses_streams(i, (i + 1) % n) ? 2 : 0);  // the copy, a record and a wait
  }
}

bool CopyRoutine::crosses_streams(std::size_t from_leg, std::size_t to_leg) const {
  return legs_.chained && legs_.legs[from_leg].stream != legs_.legs[to_leg].stream;
}

CopyCall CopyRoutine::call(const CopyLeg& leg, std::uint64_t bytes, std::uint64_t slot) const {
  const CopyEnd& from = ends_.at(leg.from);
  const CopyEnd& to = ends_.at(leg.to);
  return {to.address + to.rotation.offset(bytes, slot), to.device, from.address + from.rotation.offset(bytes, slot),
          from.device, bytes};
}

// A chained leg on another stream than the one before it waits for that one (the round trip's
// turn, also from the last leg of one repetition to the first of the next).
void CopyRoutine::enqueue_rep(std::uint64_t bytes, std::uint64_t slot) {
  const std::size_t n = legs_.legs.size();
  for (std::size_t i = 0; i < n; ++i) {
    const CopyLeg& leg = legs_.legs[i];
    const GpuStream& stream = streams_.at(leg.stream);
    check_cuda(cudaSetDevice(stream.device), "cudaSetDevice");
    const std::size_t previous = (i + n - 1) % n;
    if (crosses_streams(previous, i))
      check_cuda(cudaStreamWaitEvent(stream.stream, leg_done_[previous].get(), 0), "cudaStreamWaitEvent(leg)");
    method_.enqueue(call(leg, bytes, slot), stream.stream);
    if (crosses_streams(i, (i + 1) % n))
      check_cuda(cudaEventRecord(leg_done_[i].get(), stream.stream), "cudaEventRecord(leg)");
  }
}

void CopyRoutine::blocking_rep(std::uint64_t bytes, std::uint64_t slot) {
  for (const CopyLeg& leg : legs_.legs) method_.blocking(call(leg, bytes, slot));
}

TrialTiming CopyRoutine::run_gated(std::uint64_t bytes, std::uint64_t reps, const Clock& clock) {
  const std::uint64_t first = counter_;
  const double start = clock.now();
  const double gpu_seconds =
      gated_timer_.time(reps, operations_per_rep_, [&](std::uint64_t rep) { enqueue_rep(bytes, first + rep); });
  const double host_seconds = clock.now() - start;
  counter_ += reps;
  return {gpu_seconds, host_seconds};
}

TrialTiming CopyRoutine::run_blocking(std::uint64_t bytes, std::uint64_t reps, const Clock& clock) {
  check_cuda(cudaSetDevice(streams_.front().device), "cudaSetDevice");
  check_cuda(cudaEventRecord(blocking_start_.get(), nullptr), "cudaEventRecord(start)");
  const double start = clock.now();
  for (std::uint64_t rep = 0; rep < reps; ++rep) blocking_rep(bytes, counter_ + rep);
  check_cuda(cudaEventRecord(blocking_stop_.get(), nullptr), "cudaEventRecord(stop)");
  check_cuda(cudaEventSynchronize(blocking_stop_.get()), "cudaEventSynchronize(stop)");
  const double host_seconds = clock.now() - start;
  counter_ += reps;
  float milliseconds = 0;
  check_cuda(cudaEventElapsedTime(&milliseconds, blocking_start_.get(), blocking_stop_.get()), "cudaEventElapsedTime");
  return {host_seconds, milliseconds * 1e-3};
}

std::byte* CopyRoutine::staging(std::uint64_t bytes) {
  if (staging_.size() < bytes) staging_ = HostBuffer(bytes);
  return staging_.data();
}

void CopyRoutine::write_pattern(const CopyEnd& end, std::uint64_t bytes, std::uint64_t seed) {
  if (end.host != nullptr) {
    fill_pattern(end.host, bytes, seed);
    return;
  }
  std::byte* pattern = staging(bytes);
  fill_pattern(pattern, bytes, seed);
  check_cuda(cudaMemcpy(end.address, pattern, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(check pattern)");
  // From pageable memory cudaMemcpy may return before the GPU holds the last bytes, and the copy
  // under test runs on non-blocking streams that would not wait for them (seen: the 3-byte tail
  // of a 1 MiB + 3 SM copy read before it had landed, in one run of two).
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize(check pattern)");
}

void CopyRoutine::expect_pattern(const CopyEnd& end, std::uint64_t bytes, std::uint64_t seed,
                                 const std::optional<ByteFlip>& flip) {
  if (const auto offset = byte_to_flip(flip, bytes)) {
    if (end.host != nullptr)
      flip_host_byte(end.host, *offset);
    else
      flip_device_byte(end.address + *offset);
  }
  const std::byte* arrived = end.host;
  if (arrived == nullptr) {
    std::byte* copy = staging(bytes);
    check_cuda(cudaMemcpy(copy, end.address, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(check read-back)");
    arrived = copy;
  }
  const std::uint64_t bad = first_mismatch(arrived, bytes, seed);
  if (bad != bytes)
    throw DataError(label_ + ": byte " + std::to_string(bad) + " of a " + std::to_string(bytes) +
                    "-byte copy arrived changed (--check, which reads every byte)");
}

void CopyRoutine::check(std::uint64_t bytes, std::uint64_t seed, bool gated, const std::optional<ByteFlip>& flip) {
  const std::vector<CopyLeg>& legs = legs_.legs;
  std::vector<std::uint64_t> seeds(legs.size());
  for (std::size_t i = 0; i < legs.size(); ++i) {
    seeds[i] = seed + i;
    bool fed = false;  // by an earlier leg of the chain
    for (std::size_t j = 0; j < i; ++j)
      if (legs[j].to == legs[i].from) {
        seeds[i] = seeds[j];
        fed = true;
      }
    if (!fed) write_pattern(ends_.at(legs[i].from), bytes, seeds[i]);
  }
  if (gated)
    gated_timer_.time(1, operations_per_rep_, [&](std::uint64_t) { enqueue_rep(bytes, 0); });
  else
    blocking_rep(bytes, 0);
  for (std::size_t i = 0; i < legs.size(); ++i) {
    bool forwarded = false;  // to a later leg, whose destination is checked instead
    for (std::size_t k = i + 1; k < legs.size(); ++k) forwarded = forwarded || legs[k].from == legs[i].to;
    if (!forwarded) expect_pattern(ends_.at(legs[i].to), bytes, seeds[i], flip);
  }
}

}  // namespace npgpu
