// cudaMemcpy and cuMemcpy: copies between host memory and this rank's GPU, or inside the GPU, the
// seeds' NPcudaMemcpy and NPcuMemcpy. One implementation: the two modules differ only in the API
// that drives the copy engine (CopyApi); the SM copy kernel calls neither and is cudaMemcpy's.
#include <algorithm>
#include <optional>

#include "copy_options.hpp"
#include "cuda_common/copy_routine.hpp"
#include "cuda_common/cuda_check.hpp"
#include "cuda_common/gpu.hpp"
#include "cuda_common/gpu_options.hpp"
#include "npgpu/link_peaks.hpp"
#include "cuda_common/memory.hpp"
#include "npgpu/module.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

CUdeviceptr device_pointer(const void* address) { return reinterpret_cast<CUdeviceptr>(address); }

// The copy engine through the driver API, as the seeds' NPcuMemcpy: cuMemcpyHtoD, DtoH, DtoD.
class DriverCopy final : public CopyMethod {
 public:
  void enqueue(const CopyCall& copy, cudaStream_t stream) const override {
    if (copy.from_device == kHostMemory)
      check_cu(htod_async_(device_pointer(copy.to), copy.from, copy.bytes, stream), "cuMemcpyHtoDAsync");
    else if (copy.to_device == kHostMemory)
      check_cu(dtoh_async_(copy.to, device_pointer(copy.from), copy.bytes, stream), "cuMemcpyDtoHAsync");
    else
      check_cu(dtod_async_(device_pointer(copy.to), device_pointer(copy.from), copy.bytes, stream), "cuMemcpyDtoDAsync");
  }

  void blocking(const CopyCall& copy) const override {
    if (copy.from_device == kHostMemory)
      check_cu(htod_(device_pointer(copy.to), copy.from, copy.bytes), "cuMemcpyHtoD");
    else if (copy.to_device == kHostMemory)
      check_cu(dtoh_(copy.to, device_pointer(copy.from), copy.bytes), "cuMemcpyDtoH");
    else
      check_cu(dtod_(device_pointer(copy.to), device_pointer(copy.from), copy.bytes), "cuMemcpyDtoD");
  }

 private:
  decltype(&cuMemcpyHtoDAsync) htod_async_ = driver_function<decltype(&cuMemcpyHtoDAsync)>("cuMemcpyHtoDAsync");
  decltype(&cuMemcpyDtoHAsync) dtoh_async_ = driver_function<decltype(&cuMemcpyDtoHAsync)>("cuMemcpyDtoHAsync");
  decltype(&cuMemcpyDtoDAsync) dtod_async_ = driver_function<decltype(&cuMemcpyDtoDAsync)>("cuMemcpyDtoDAsync");
  decltype(&cuMemcpyHtoD) htod_ = driver_function<decltype(&cuMemcpyHtoD)>("cuMemcpyHtoD");
  decltype(&cuMemcpyDtoH) dtoh_ = driver_function<decltype(&cuMemcpyDtoH)>("cuMemcpyDtoH");
  decltype(&cuMemcpyDtoD) dtod_ = driver_function<decltype(&cuMemcpyDtoD)>("cuMemcpyDtoD");
};

// What differs between the two modules.
struct CopyApi {
  const char* module;
  const char* engine_calls;  // for the record
  std::unique_ptr<CopyMethod> (*engine_copy)();
};

const CopyApi kRuntimeApi{"cudaMemcpy",
                          "copy engine through the CUDA runtime: cudaMemcpyAsync (--api async), cudaMemcpy (--api sync)",
                          [] { return std::unique_ptr<CopyMethod>(std::make_unique<RuntimeCopy>()); }};
const CopyApi kDriverApi{"cuMemcpy",
                         "copy engine through the CUDA driver API: cuMemcpy{HtoD,DtoH,DtoD}Async (--api async), "
                         "cuMemcpy{HtoD,DtoH,DtoD} (--api sync)",
                         [] { return std::unique_ptr<CopyMethod>(std::make_unique<DriverCopy>()); }};

std::size_t host_places(const std::string& direction) {
  const std::vector<std::size_t> places = places_used(direction_legs(direction));
  return static_cast<std::size_t>(std::count_if(places.begin(), places.end(), on_host));
}

class CudaCopyModule final : public Module {
 public:
  explicit CudaCopyModule(const CopyApi& api) : api_(api) {}

  void setup(const ModuleSetup& setup) override {
    const RunView& options = setup.run;
    const CopyOptions& own = options_of<CopyOptions>(options.module_options);
    direction_ = own.direction;
    flip_ = options.flip;
    blocking_ = own.api == "sync";
    kernel_ = own.copy == "sm";
    memory_kind_ = host_memory_kind(own.host_memory);
    // First: the thread moves next to the GPU, so the host memory below lands on its NUMA node.
    gpu_ = open_gpu(setup.team, chosen_device(own.device), options.gpus_in_turn);
    const bool cold = options.cache == CacheState::cold;
    const CopyLegs legs = direction_legs(direction_);
    const std::vector<std::size_t> places = places_used(legs);
    const std::uint64_t gpu_pool = rotation_pool_bytes(setup.max_bytes, gpu_.l2_bytes, cold);
    const std::uint64_t host_pool = host_pool_bytes(options, setup.max_bytes);
    require_gpu_memory(gpu_, gpu_pool * (places.size() - host_places(direction_)), api_.module);
    gpu_rotation_ = cold ? "cache-cold: copies rotate over " + format_bytes(gpu_pool) + " of GPU memory per buffer (L2 " +
                               format_bytes(gpu_.l2_bytes) + ")"
                         : "cache-warm: every copy reuses one GPU buffer";

    std::vector<CopyEnd> ends(kCopyPlaces);
    for (std::size_t place : places) {
      if (on_host(place)) {
        const HostMemory& memory = host_memory_.emplace_back(host_pool, memory_kind_);
        ends[place] = {kHostMemory, kernel_ ? memory.device_view() : memory.data(), memory.data(), Rotation(host_pool, cold)};
      } else {
        const DeviceBuffer& buffer = gpu_memory_.emplace_back(gpu_pool);
        ends[place] = {gpu_.index, buffer.data(), nullptr, Rotation(gpu_pool, cold)};
      }
    }
    std::vector<GpuStream> streams;
    for (std::size_t i = 0; i < stream_count(legs); ++i)
      streams.push_back({gpu_.index, streams_.emplace_back(gpu_.index).get()});
    method_ = kernel_ ? std::make_unique<KernelCopy>() : api_.engine_copy();
    routine_.emplace(std::string(api_.module) + " " + direction_, std::move(ends), legs, streams, *method_);
  }

  TrialTiming run(const TrialSpec& trial) override {
    return blocking_ ? routine_->run_blocking(trial.bytes, trial.reps, trial.clock)
                     : routine_->run_gated(trial.bytes, trial.reps, trial.clock);
  }

  void check(std::uint64_t bytes, std::uint64_t seed) override { routine_->check(bytes, seed, !blocking_, flip_); }

  TransferShape shape(Pattern pattern, std::uint64_t bytes, std::uint64_t) const override {
    return copy_shape(pattern, bytes);
  }

  std::uint64_t host_bytes_needed(const RunView& options, std::uint64_t max_bytes) const override {
    const std::uint64_t check_staging = options.check_data ? max_bytes : 0;
    const std::string& direction = options_of<CopyOptions>(options.module_options).direction;
    return host_places(direction) * host_pool_bytes(options, max_bytes) + check_staging;
  }

  std::string primary_timer_name() const override { return blocking_ ? kBlockingHostTimer : kGatedEventsTimer; }
  std::string alt_timer_name() const override { return blocking_ ? kBlockingEventsTimer : kGatedHostTimer; }
  std::string message_check() const override { return {}; }

  std::string throughput_meaning(Pattern) const override {
    if (direction_ == "d2d")
      return "copy size / time per copy; each copy reads and writes its size in GPU memory, so memory traffic is twice this";
    if (direction_ == "h2d2h") return "message size / one-way time (half of an h2d copy followed by a d2h copy)";
    if (direction_ == "bidir") return "bytes of both directions (an h2d and a d2h copy at once) / time per pair of copies";
    return "copy size / time per copy, one direction over the GPU's host link";
  }

  std::vector<std::pair<std::string, std::string>> placement() const override {
    std::vector<std::pair<std::string, std::string>> facts = gpu_facts(gpu_);
    facts.emplace_back("direction", direction_);
    facts.emplace_back("copy", kernel_ ? sm_copy_description(gpu_.multiprocessors) : api_.engine_calls);
    facts.emplace_back("gpu_buffers", gpu_rotation_);
    if (!host_memory_.empty()) {
      facts.emplace_back("host_memory", host_memory_description(memory_kind_));
      const int node = numa_node_of(host_memory_.front().data());
      const std::string toucher = gpu_.bound_near ? "bound to the GPU's local cores" : "not bound near the GPU";
      facts.emplace_back("host_memory_numa_node",
                         node >= 0 ? std::to_string(node)
                                   : "unknown (move_pages does not see these pages); first touched by a thread " + toucher);
    }
    return facts;
  }

  LinkPeak link_peak() const override {
    if (direction_ == "d2d") return copy_rate_peak(memory_peak(gpu_));
    if (direction_ == "bidir") return both_directions(host_link_peak(gpu_));
    return host_link_peak(gpu_);
  }

 private:
  const CopyApi& api_;
  std::string direction_;
  bool blocking_ = false;
  bool kernel_ = false;
  HostMemoryKind memory_kind_ = HostMemoryKind::pinned;
  Gpu gpu_;
  std::string gpu_rotation_;
  std::vector<HostMemory> host_memory_;
  std::vector<DeviceBuffer> gpu_memory_;
  std::vector<Stream> streams_;
  std::unique_ptr<CopyMethod> method_;
  std::optional<CopyRoutine> routine_;
  std::optional<ByteFlip> flip_;
};

}  // namespace

std::unique_ptr<Module> make_cuda_memcpy_module() { return std::make_unique<CudaCopyModule>(kRuntimeApi); }
std::unique_ptr<Module> make_cu_memcpy_module() { return std::make_unique<CudaCopyModule>(kDriverApi); }

}  // namespace npgpu
