// cudaIpc: ranks of one node, each on its own GPU. Each exports its receive pool
// (cudaIpcGetMemHandle), its partners map it (cudaIpcOpenMemHandle) and their GPUs copy messages
// straight into it over NVLink or PCIe: the path CUDA-aware MPIs take inside a node.
#include <mpi.h>

#include <chrono>
#include <map>
#include <optional>

#include "cuda_common/cuda_check.hpp"
#include "cuda_common/gpu.hpp"
#include "cuda_common/gpu_options.hpp"
#include "npgpu/module.hpp"
#include "pair/cuda_stream.hpp"
#include "pair/message_memory.hpp"
#include "pair/pair_comm.hpp"
#include "pair/pair_facts.hpp"
#include "pair/pair_patterns.hpp"
#include "pair/pattern_module.hpp"

namespace npgpu {
namespace {

constexpr int kNoticeTag = 3;

struct CloseIpcMapping {
  void operator()(std::byte* mapped) const { cudaIpcCloseMemHandle(mapped); }
};
using MappedPool = std::unique_ptr<std::byte, CloseIpcMapping>;

// A send is a copy by this rank's GPU into the peer's pool, at the place the message has in ours.
// Once the stream has synchronized, an empty MPI message tells the peer its messages are there:
// the host clock of the timing rank times the whole, so the handshake needs no IPC events, and on
// shared memory it costs well under a microsecond. All sends of one complete() go to one peer
// and all receives come from one (the patterns' shape), so a notice each way at most.
class IpcTransport final : public Transport {
 public:
  IpcTransport(MPI_Comm comm, const MessageMemory& memory, const std::map<int, MappedPool>& peer_pools,
               cudaStream_t stream)
      : comm_(comm), memory_(memory), peer_pools_(peer_pools), stream_(stream) {}

  void send(const Message& message) override { sends_.push_back(message); }
  void receive(const Message& message) override { receiving_from_ = message.peer; }  // the peer's GPU writes it

  void complete() override {
    for (const Message& m : sends_)
      check_cuda(cudaMemcpyAsync(peer_pools_.at(m.peer).get() + memory_.pool_offset(m.data), m.data, m.bytes,
                                 cudaMemcpyDeviceToDevice, stream_),
                 "cudaMemcpyAsync (into the peer's GPU)");
    const int sending_to = sends_.empty() ? -1 : sends_.front().peer;
    if (sending_to >= 0) check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    if (sending_to >= 0 && receiving_from_ >= 0)
      MPI_Sendrecv(nullptr, 0, MPI_BYTE, sending_to, kNoticeTag, nullptr, 0, MPI_BYTE, receiving_from_, kNoticeTag,
                   comm_, MPI_STATUS_IGNORE);
    else if (sending_to >= 0)
      MPI_Send(nullptr, 0, MPI_BYTE, sending_to, kNoticeTag, comm_);
    else if (receiving_from_ >= 0)
      MPI_Recv(nullptr, 0, MPI_BYTE, receiving_from_, kNoticeTag, comm_, MPI_STATUS_IGNORE);
    sends_.clear();
    receiving_from_ = -1;
  }

  void quiesce() override { MPI_Barrier(comm_); }

 private:
  MPI_Comm comm_;
  const MessageMemory& memory_;
  const std::map<int, MappedPool>& peer_pools_;
  cudaStream_t stream_;
  std::vector<Message> sends_;
  int receiving_from_ = -1;
};

class CudaIpcModule final : public PatternModule<PairPatterns> {
 public:
  void setup(const ModuleSetup& setup) override {
    const RunView& options = setup.run;
    comm_ = PairComm(setup.team);
    const MPI_Comm comm = comm_.get();
    require_one_host("cudaIpc", gather_all(comm, processor_name()), setup.pairing);
    const std::optional<int> device = chosen_device(options_of<DeviceOptions>(options.module_options).device);
    on_all_ranks(setup.team, [&] { gpu_ = open_gpu(setup.team, device, options.gpus_in_turn); });
    const RankFacts gpus = gather_all(comm, std::to_string(gpu_.index));

    // Every pool rotates alike, so a message lands at the place it has in the sender's pool.
    std::uint64_t l2 = gpu_.l2_bytes;
    MPI_Allreduce(MPI_IN_PLACE, &l2, 1, MPI_UINT64_T, MPI_MAX, comm);
    const bool cold = options.cache == CacheState::cold;
    memory_ = make_device_message_memory(rotation_pool_bytes(setup.max_bytes, l2, cold), cold, setup.max_bytes);

    cudaIpcMemHandle_t mine{};
    check_cuda(cudaIpcGetMemHandle(&mine, memory_->receive_pool()), "cudaIpcGetMemHandle");
    std::vector<cudaIpcMemHandle_t> handles(static_cast<std::size_t>(setup.team.size()));
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, handles.data(), sizeof mine, MPI_BYTE, comm);
    for (int peer : partners(setup.pairing, comm_.rank())) map_peer(peer, handles[static_cast<std::size_t>(peer)],
                                                                   std::stoi(gpus[static_cast<std::size_t>(peer)]));

    stream_ = CudaStream("cudaStreamCreateWithFlags (cudaIpc)");
    transport_.emplace(comm, *memory_, peer_pools_, stream_.get());
    patterns_.emplace("cudaIpc", options, *memory_, true, *transport_);
  }

  std::uint64_t host_bytes_needed(const RunView&, std::uint64_t max_bytes) const override {
    return max_bytes;  // the --check pattern's way through the host
  }

  std::string throughput_meaning(Pattern pattern) const override {
    return Module::throughput_meaning(pattern) + "; each transfer is one GPU's copy into the other's memory";
  }

  std::vector<std::pair<std::string, std::string>> placement() const override {
    std::vector<std::pair<std::string, std::string>> facts = gpu_facts(gpu_);
    std::string peer_gpus, access;
    for (const auto& [peer, gpu] : peer_gpus_) {
      int can_access = 0;
      if (gpu != gpu_.index) check_cuda(cudaDeviceCanAccessPeer(&can_access, gpu_.index, gpu), "cudaDeviceCanAccessPeer");
      const char* how = gpu == gpu_.index ? "same GPU" : can_access ? "yes (NVLink or PCIe peer to peer)" : "no";
      peer_gpus += (peer_gpus.empty() ? "" : ",") + std::to_string(gpu);
      if (access.find(how) == std::string::npos) access += (access.empty() ? "" : "; ") + std::string(how);
    }
    facts.emplace_back("peer_gpu", peer_gpus.empty() ? "none (idle rank)" : peer_gpus);
    facts.emplace_back("peer_access", access.empty() ? "none (idle rank)" : access);
    facts.emplace_back("ipc_handle_import_s", seconds_fact(import_seconds_));
    facts.emplace_back("handshake", "an MPI message once the copying stream has synchronized");
    return facts;
  }

 private:
  // Mapping a peer's memory is a first-touch cost: timed here, kept out of the curve.
  void map_peer(int peer, const cudaIpcMemHandle_t& handle, int peer_gpu) {
    const auto started = std::chrono::steady_clock::now();
    void* mapped = nullptr;
    check_cuda(cudaIpcOpenMemHandle(&mapped, handle, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    import_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    peer_pools_[peer].reset(static_cast<std::byte*>(mapped));
    peer_gpus_[peer] = peer_gpu;
  }

  // In the order they are built; destroyed the other way round.
  PairComm comm_;
  Gpu gpu_;
  std::map<int, int> peer_gpus_;  // partner rank: its GPU
  std::unique_ptr<MessageMemory> memory_;
  std::map<int, MappedPool> peer_pools_;
  double import_seconds_ = 0;  // all partners' imports together
  CudaStream stream_;
  std::optional<IpcTransport> transport_;
};

}  // namespace

std::unique_ptr<Module> make_cuda_ipc_module() { return std::make_unique<CudaIpcModule>(); }

}  // namespace npgpu
