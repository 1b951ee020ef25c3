// mpiRma: MPI one-sided communication between pairs of ranks, MPI_Put or MPI_Get (--operation),
// passive target (MPI_Win_lock_all once, MPI_Win_flush) or active target (MPI_Win_fence) (--sync),
// in the one-sided patterns shared with the other one-sided modules (pair/one_sided_patterns.hpp
// says what each repetition is). Host memory, or GPU memory (--buffers D,D) under a CUDA-aware MPI;
// rma_windows.hpp says which windows and why.
#include <mpi.h>

#include <climits>
#include <optional>

#include "mpi_common/cuda_awareness.hpp"
#include "mpi_common/device_buffers.hpp"
#include "mpi_common/mpi_places.hpp"
#include "mpi_rma/rma_options.hpp"
#include "mpi_rma/rma_windows.hpp"
#include "npgpu/errors.hpp"
#include "npgpu/module.hpp"
#include "pair/message_memory.hpp"
#include "pair/pair_comm.hpp"
#include "pair/pattern_module.hpp"

namespace npgpu {
namespace {

class MpiRmaModule final : public PatternModule<OneSidedPatterns> {
 public:
  void setup(const ModuleSetup& setup) override {
    const RunView& options = setup.run;
    const RmaOptions& own = options_of<RmaOptions>(options.module_options);
    if (setup.max_bytes > static_cast<std::uint64_t>(INT_MAX))
      throw UsageError("--upper " + std::to_string(setup.max_bytes) +
                       ": module mpiRma moves at most 2147483647 bytes per put or get (MPI counts are int)");
    comm_ = PairComm(setup.team);
    pattern_ = options.pattern;
    places_ = MpiPlaces(comm_.get());
    const bool cold = options.cache == CacheState::cold;
    if (own.on_gpu()) {
      DeviceBuffers device = open_device_buffers(setup.team, options, own.buffers, own.device, setup.max_bytes);
      gpu_memory_ = std::move(device.memory);
      gpu_facts_ = std::move(device.facts);
      windows_.emplace(comm_.get(), gpu_memory_->pool_bytes(), own.one_sided_sync(), setup.pairing,
                       gpu_memory_->receive_pool());
    } else {
      const std::uint64_t pool = host_pool_bytes(options, setup.max_bytes);
      windows_.emplace(comm_.get(), pool, own.one_sided_sync(), setup.pairing);
      host_memory_ = make_host_message_memory(pool, cold, windows_->exposed());
      if (own.one_sided_sync() == OneSidedSync::flush) read_partners_memory(setup.pairing, pool);
    }
    patterns_.emplace("mpiRma", own.one_sided_operation(), own.one_sided_sync(), options, memory(), *windows_);
    operation_ = own.operation;
    sync_ = own.sync;
  }

  TransferShape shape(Pattern pattern, std::uint64_t bytes, std::uint64_t window) const override {
    return patterns_->words().shape(pattern, bytes, window);
  }

  std::string throughput_meaning(Pattern pattern) const override { return patterns_->words().throughput_meaning(pattern); }

  RepetitionWords repetition_words(Pattern pattern) const override {
    const OneSidedWords words = patterns_->words();
    return {words.repetition(pattern), words.one_transfer(pattern)};
  }

  std::string message_check() const override { return patterns_->words().message_check(); }

  std::uint64_t host_bytes_needed(const RunView& options, std::uint64_t max_bytes) const override {
    if (options_of<RmaOptions>(options.module_options).on_gpu()) return max_bytes;  // --check's staging
    return 2 * host_pool_bytes(options, max_bytes);  // the local pool and the exposed one
  }

  // The network between the step's pair, as for mpi: none on one host; between hosts, the one IP
  // interface that reaches the peer when MPI has no other way there; unknown, with why, otherwise.
  LinkPeak link_peak() const override {
    const int peer = patterns_->peers().to;
    if (peer < 0) return {};
    return places_.host_link_peak(comm_.rank(), peer, pattern_);
  }

  std::vector<std::pair<std::string, std::string>> placement() const override {
    const bool lock = sync_ == "lock";
    std::vector<std::pair<std::string, std::string>> facts{
            {"messages", gpu_memory_ ? "GPU memory" : "host memory"},
            {"rma_operation", operation_ == "get" ? "get (MPI_Get out of the peer's window)" : "put (MPI_Put into the peer's window)"},
            {"rma_sync", lock ? "lock: MPI_Win_lock_all once (MPI_MODE_NOCHECK), MPI_Win_flush to complete"
                              : "fence: MPI_Win_fence on the window of the pair, by both of its ranks"},
            {"rma_window", windows_->description()},
            {"rma_memory_model", windows_->memory_model()},
            {"rma_arrival", patterns_->words().arrival() + (lock ? "; the refresh is " + windows_->refresh_description() : "")},
            {"mpi_cuda_aware", describe(mpi_cuda_awareness())}};
    facts.insert(facts.end(), gpu_facts_.begin(), gpu_facts_.end());
    return facts;
  }

 private:
  // Under osc sm a partner's memory is mapped into this process, and the first access to each of
  // its pages from here is a page fault, which the cache-cold rotation over the pool would meet
  // inside the timing: 64 KiB put pingpongs took 200-270 us here with every page new, 6.5-7.5 us after
  // this. So each rank reads each partner's whole exposed pool once, into its own local pool (which
  // the patterns write before they use), after every rank has touched its own.
  void read_partners_memory(const RankPairing& pairing, std::uint64_t pool) {
    MPI_Barrier(comm_.get());
    for (int partner : partners(pairing, comm_.rank())) {
      windows_->get(host_memory_->send_slot(pool, 0), pool, partner, 0);
      windows_->flush(partner);
    }
  }

  MessageMemory& memory() const { return gpu_memory_ ? *gpu_memory_ : *host_memory_; }

  // In the order they are built; destroyed the other way round.
  PairComm comm_;
  Pattern pattern_ = Pattern::pingpong;
  MpiPlaces places_;
  std::unique_ptr<MessageMemory> gpu_memory_;  // D,D: the GPU pools, which the windows expose
  std::optional<RmaWindows> windows_;
  std::unique_ptr<MessageMemory> host_memory_;  // H,H: over the memory MPI allocated for the windows
  std::vector<std::pair<std::string, std::string>> gpu_facts_;
  std::string operation_, sync_;
};

}  // namespace

std::unique_ptr<Module> make_mpi_rma_module() { return std::make_unique<MpiRmaModule>(); }

}  // namespace npgpu
