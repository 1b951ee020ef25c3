// p2p: copies between two GPUs of this node over peer access (NVLink or PCIe), nvbandwidth's
// device-to-device tests: write (the GPU holding the data pushes it) or read (the receiving GPU
// pulls it), one way, both ways at once, or there and back; by copy engine or SM kernel; one curve
// per GPU pair. Without peer access CUDA stages the copies through host memory: measured, and
// labelled so in the record and on the console.
#include <algorithm>
#include <map>
#include <optional>

#include "cuda_common/copy_routine.hpp"
#include "cuda_common/cuda_check.hpp"
#include "cuda_common/gpu.hpp"
#include "cuda_common/gpu_pair_path.hpp"
#include "npgpu/link_peaks.hpp"
#include "cuda_common/memory.hpp"
#include "cuda_common/nvlinks.hpp"
#include "npgpu/module.hpp"
#include "npgpu/sizes.hpp"
#include "p2p_options.hpp"

namespace npgpu {
namespace {

// One GPU of the pairs: its memory to send from and receive into, and the stream of its work.
struct GpuSide {
  Gpu gpu;
  NvLinks links;
  DeviceBuffer sends, receives;
  Rotation rotation;
  Stream stream;
};

std::string gpu_line(const Gpu& gpu) {
  return std::to_string(gpu.index) + ": " + gpu.name + ", " + gpu.uuid + ", " + gpu.pci_bus_id + ", NUMA node " +
         std::to_string(gpu.pci.numa_node);
}

class P2pModule final : public Module {
 public:
  void setup(const ModuleSetup& setup) override {
    const RunView& options = setup.run;
    pattern_ = options.pattern;
    flip_ = options.flip;
    const P2pOptions& own = options_of<P2pOptions>(options.module_options);
    write_ = own.access == "write";
    kernel_ = own.copy == "sm";
    legs_ = pair_legs(pattern_, write_);
    pairs_ = expand_pairs(parse_pairs(own.pairs), cuda_device_count(), pattern_);
    std::vector<int> used;
    for (const GpuPair& pair : pairs_) used.insert(used.end(), {pair.source, pair.destination});
    for (int index : used)
      if (sides_.count(index) == 0) sides_[index].gpu = open_gpu_index(index);
    enable_peer_access();
    if (kernel_)
      for (const GpuPair& pair : pairs_)
        if (!has_peer_access(pair))
          throw UsageError("--copy sm: GPUs " + std::to_string(pair.source) + " and " + std::to_string(pair.destination) +
                           " have no peer access, so no kernel can copy between them; --copy ce measures the path "
                           "CUDA falls back to (staged through host memory)");
    allocate(setup.max_bytes, options.cache == CacheState::cold);
    // The thread works for the first pair's source GPU: it waits next to it.
    const Gpu& first = sides_.at(pairs_.front().source).gpu;
    bound_near_ = "GPU " + std::to_string(first.index) + ": " + (bind_to_cpus(first.pci.local_cpus) ? "yes" : "no");
    method_ = kernel_ ? std::unique_ptr<CopyMethod>(std::make_unique<KernelCopy>()) : std::make_unique<RuntimeCopy>();
  }

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const GpuPair& pair : pairs_) names.push_back(pair_variant(pair, pattern_));
    return names;
  }

  void select_variant(std::size_t index) override {
    selected_ = pairs_.at(index);
    GpuSide& source = sides_.at(selected_.source);
    GpuSide& destination = sides_.at(selected_.destination);
    std::vector<CopyEnd> ends(kPairEnds);
    ends[kSourceSends] = {source.gpu.index, source.sends.data(), nullptr, source.rotation};
    ends[kDestinationReceives] = {destination.gpu.index, destination.receives.data(), nullptr, destination.rotation};
    ends[kDestinationSends] = {destination.gpu.index, destination.sends.data(), nullptr, destination.rotation};
    ends[kSourceReceives] = {source.gpu.index, source.receives.data(), nullptr, source.rotation};
    std::vector<GpuStream> streams{{source.gpu.index, source.stream.get()},
                                   {destination.gpu.index, destination.stream.get()}};
    routine_.reset();
    routine_.emplace("p2p " + pair_variant(selected_, pattern_), std::move(ends), legs_, streams, *method_);
  }

  TrialTiming run(const TrialSpec& trial) override { return routine_->run_gated(trial.bytes, trial.reps, trial.clock); }

  void check(std::uint64_t bytes, std::uint64_t seed) override { routine_->check(bytes, seed, true, flip_); }

  TransferShape shape(Pattern pattern, std::uint64_t bytes, std::uint64_t) const override {
    return copy_shape(pattern, bytes);
  }

  std::uint64_t host_bytes_needed(const RunView& options, std::uint64_t max_bytes) const override {
    return options.check_data ? max_bytes : 0;  // the check's staging buffer
  }

  std::string primary_timer_name() const override { return kGatedEventsTimer; }
  std::string alt_timer_name() const override { return kGatedHostTimer; }
  std::string message_check() const override { return {}; }

  std::string throughput_meaning(Pattern pattern) const override {
    switch (pattern) {
      case Pattern::pingpong: return "message size / one-way time (half of a copy to the peer and its copy back)";
      case Pattern::bidir: return "bytes of both directions (a copy each way at once) / time per pair of copies";
      case Pattern::stream: break;
    }
    return "copy size / time per copy, one direction from GPU to GPU";
  }

  std::vector<std::pair<std::string, std::string>> placement() const override {
    std::string gpus, bus_ids;
    for (const auto& [index, side] : sides_) {
      gpus += (gpus.empty() ? "" : "; ") + gpu_line(side.gpu);
      bus_ids += (bus_ids.empty() ? "" : " ") + side.gpu.pci_bus_id;
    }
    std::vector<std::pair<std::string, std::string>> facts{
        {"gpus", gpus},
        {"gpu_pci_bus_ids", bus_ids},  // what a run under a p2p load shares with it
        {"p2p", write_ ? "write: the GPU holding the data pushes it to its peer"
                       : "read: the receiving GPU pulls the data from its peer"},
        {"copy", kernel_ ? sm_copy_description(sides_.begin()->second.gpu.multiprocessors)
                         : "copy engine: cudaMemcpyPeerAsync on a stream of the GPU that does the work"},
        {"gpu_buffers", rotation_text_},
        {"thread_bound_near_gpu", bound_near_}};
    for (const GpuPair& pair : pairs_) facts.emplace_back("path_" + pair_variant(pair, pattern_), path(pair).text + (has_peer_access(pair) ? "" : ", and that is what this curve measures"));
    for (const auto& fact : gpu_facts(sides_.begin()->second.gpu))
      if (fact.first == "cuda_driver" || fact.first == "cuda_runtime") facts.push_back(fact);
    return facts;
  }

  LinkPeak link_peak() const override {
    const LinkPeak one_way = path(selected_).peak;
    return pattern_ == Pattern::bidir ? both_directions(one_way) : one_way;
  }

 private:
  void enable_peer_access() {
    for (const auto& [a, side_a] : sides_)
      for (const auto& [b, side_b] : sides_) {
        if (a == b) continue;
        int can = 0;
        check_cuda(cudaDeviceCanAccessPeer(&can, a, b), "cudaDeviceCanAccessPeer");
        access_[{a, b}] = can != 0;
        if (can == 0) continue;
        const CurrentDevice current(a);
        const cudaError_t status = cudaDeviceEnablePeerAccess(b, 0);
        if (status == cudaErrorPeerAccessAlreadyEnabled)
          cudaGetLastError();  // not an error here; clear it so later checks do not see it
        else
          check_cuda(status, "cudaDeviceEnablePeerAccess");
      }
  }

  // Every GPU that does work for the pair reaches the other one's memory.
  bool has_peer_access(const GpuPair& pair) const {
    for (const CopyLeg& leg : legs_.legs) {
      const bool source_works = leg.stream == kSourceStream;
      const int worker = source_works ? pair.source : pair.destination;
      const int other = source_works ? pair.destination : pair.source;
      if (!access_.at({worker, other})) return false;
    }
    return true;
  }

  void allocate(std::uint64_t max_bytes, bool cold) {
    for (auto& [index, side] : sides_) {
      const std::uint64_t pool = rotation_pool_bytes(max_bytes, side.gpu.l2_bytes, cold);
      require_gpu_memory(side.gpu, 2 * pool, "p2p");
      const CurrentDevice current(index);
      side.sends = DeviceBuffer(pool);
      side.receives = DeviceBuffer(pool);
      side.rotation = Rotation(pool, cold);
      side.stream = Stream(index);
      side.links = nvlinks_of(side.gpu.pci_bus_id);
      rotation_text_ = cold ? "cache-cold: copies rotate over " + format_bytes(pool) + " per buffer (L2 " +
                                  format_bytes(side.gpu.l2_bytes) + ")"
                            : "cache-warm: every copy reuses one buffer on each GPU";
    }
  }

  GpuPairPath path(const GpuPair& pair) const {
    const GpuSide& source = sides_.at(pair.source);
    const GpuSide& destination = sides_.at(pair.destination);
    return gpu_pair_path({source.gpu, source.links}, {destination.gpu, destination.links}, has_peer_access(pair));
  }

  Pattern pattern_ = Pattern::stream;
  bool write_ = true;
  bool kernel_ = false;
  CopyLegs legs_;
  std::vector<GpuPair> pairs_;
  GpuPair selected_;
  std::map<int, GpuSide> sides_;
  std::map<std::pair<int, int>, bool> access_;  // (a, b): GPU a can reach GPU b's memory
  std::string rotation_text_;
  std::string bound_near_;
  std::unique_ptr<CopyMethod> method_;
  std::optional<CopyRoutine> routine_;
  std::optional<ByteFlip> flip_;
};

}  // namespace

std::unique_ptr<Module> make_p2p_module() { return std::make_unique<P2pModule>(); }

}  // namespace npgpu
