// nccl: ncclSend/ncclRecv between ranks, each on its own GPU, one communicator over every rank,
// bootstrapped through MPI. The timing rank of each pair times on the host clock, each pattern step
// ending in a stream synchronize (as OSU's xccl benchmarks do). NCCL connects peers lazily on the
// first call: that cost is measured on its own in setup for every step's peers and recorded,
// never left to the curve.
#include <mpi.h>
#include <nccl.h>

#include <chrono>
#include <optional>
#include <type_traits>

#include "cuda_common/cuda_check.hpp"
#include "cuda_common/gpu.hpp"
#include "cuda_common/gpu_options.hpp"
#include "npgpu/module.hpp"
#include "pair/cuda_stream.hpp"
#include "pair/first_exchanges.hpp"
#include "pair/message_memory.hpp"
#include "pair/pair_comm.hpp"
#include "pair/pair_facts.hpp"
#include "pair/pair_patterns.hpp"
#include "pair/pattern_module.hpp"

namespace npgpu {
namespace {

void check_nccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess)
    throw RunError(std::string(what) + ": " + ncclGetErrorString(status) + " (" + ncclGetLastError(nullptr) + ")");
}

// Queued messages go to NCCL as one group, then the stream synchronizes.
class NcclTransport final : public Transport {
 public:
  NcclTransport(ncclComm_t comm, cudaStream_t stream) : comm_(comm), stream_(stream) {}
  void send(const Message& message) override { queue_.push_back({message, true}); }
  void receive(const Message& message) override { queue_.push_back({message, false}); }

  void complete() override {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (const auto& [m, send] : queue_) {
      if (send)
        check_nccl(ncclSend(m.data, m.bytes, ncclInt8, m.peer, comm_, stream_), "ncclSend");
      else
        check_nccl(ncclRecv(m.data, m.bytes, ncclInt8, m.peer, comm_, stream_), "ncclRecv");
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    queue_.clear();
  }

 private:
  ncclComm_t comm_;
  cudaStream_t stream_;
  std::vector<std::pair<Message, bool>> queue_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct DestroyNcclComm {
  void operator()(ncclComm_t comm) const { ncclCommDestroy(comm); }
};

class NcclModule final : public PatternModule<PairPatterns> {
 public:
  void setup(const ModuleSetup& setup) override {
    const RunView& options = setup.run;
    comm_ = PairComm(setup.team);
    const int rank = comm_.rank();
    const std::optional<int> device = chosen_device(options_of<DeviceOptions>(options.module_options).device);
    on_all_ranks(setup.team, [&] { gpu_ = open_gpu(setup.team, device, options.gpus_in_turn); });
    require_own_gpus("nccl", gather_all(comm_.get(), processor_name()), gather_all(comm_.get(), gpu_.pci_bus_id));

    ncclUniqueId id{};
    if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm_.get());
    const auto started = std::chrono::steady_clock::now();
    ncclComm_t nccl = nullptr;
    check_nccl(ncclCommInitRank(&nccl, setup.team.size(), id, rank), "ncclCommInitRank");
    nccl_.reset(nccl);
    init_seconds_ = seconds_since(started);
    stream_ = CudaStream("cudaStreamCreateWithFlags (nccl)");

    const bool cold = options.cache == CacheState::cold;
    memory_ = make_device_message_memory(rotation_pool_bytes(setup.max_bytes, gpu_.l2_bytes, cold), cold,
                                         setup.max_bytes);
    transport_.emplace(nccl_.get(), stream_.get());
    // NCCL connects every step's peers on their first exchange.
    exchanges_ = time_first_exchanges(comm_.get(), setup.pairing, rank, *transport_, *memory_);
    patterns_.emplace("nccl", options, *memory_, true, *transport_);
  }

  std::uint64_t host_bytes_needed(const RunView&, std::uint64_t max_bytes) const override {
    return max_bytes;  // the --check pattern's way through the host
  }

  std::vector<std::pair<std::string, std::string>> placement() const override {
    int version = 0;
    check_nccl(ncclGetVersion(&version), "ncclGetVersion");
    std::vector<std::pair<std::string, std::string>> facts = gpu_facts(gpu_);
    facts.emplace_back("nccl_version", std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
                                           "." + std::to_string(version % 100));
    facts.emplace_back("nccl_comm_init_s", seconds_fact(init_seconds_));
    facts.emplace_back("nccl_first_call_s", seconds_fact(exchanges_.first_seconds));
    facts.emplace_back("nccl_second_call_s", seconds_fact(exchanges_.second_seconds));
    facts.emplace_back("nccl_environment", environment_settings("NCCL_"));
    return facts;
  }

  // The guard exits the process right after: the communicator is aborted, never destroyed.
  void abort_waits() override {
    if (nccl_) ncclCommAbort(nccl_.release());
  }

 private:
  // In the order they are built; destroyed the other way round.
  PairComm comm_;
  Gpu gpu_;
  std::unique_ptr<std::remove_pointer_t<ncclComm_t>, DestroyNcclComm> nccl_;
  CudaStream stream_;
  double init_seconds_ = 0;
  FirstExchanges exchanges_;
  std::unique_ptr<MessageMemory> memory_;
  std::optional<NcclTransport> transport_;
};

}  // namespace

std::unique_ptr<Module> make_nccl_module() { return std::make_unique<NcclModule>(); }

}  // namespace npgpu
