// cudaIpc: two ranks on one node, each on its own GPU. Each exports its receive pool
// (cudaIpcGetMemHandle), the other maps it (cudaIpcOpenMemHandle) and its GPU copies messages
// straight into it over NVLink or PCIe: the path CUDA-aware MPIs take inside a node.
#include <mpi.h>

#include <chrono>
#include <optional>

#include "cuda_common/cuda_check.hpp"
#include "cuda_common/gpu.hpp"
#include "factories.hpp"
#include "pair/cuda_stream.hpp"
#include "pair/message_memory.hpp"
#include "pair/pair_comm.hpp"
#include "pair/pair_facts.hpp"
#include "pair/pair_patterns.hpp"

namespace npgpu {
namespace {

constexpr int kNoticeTag = 3;

// A send is a copy by this rank's GPU into the peer's pool, at the place the message has in ours.
// Once the stream has synchronized, an empty MPI message tells the peer its messages are there:
// the host clock on rank 0 times the whole, so the handshake needs no IPC events, and on shared
// memory it costs well under a microsecond.
class IpcTransport final : public Transport {
 public:
  IpcTransport(MPI_Comm comm, int peer, const MessageMemory& memory, std::byte* peer_receive_pool, cudaStream_t stream)
      : comm_(comm), peer_(peer), memory_(memory), peer_pool_(peer_receive_pool), stream_(stream) {}

  void send(const Message& message) override { sends_.push_back(message); }
  void receive(const Message&) override { receiving_ = true; }  // the peer's GPU writes it

  void complete() override {
    for (const Message& m : sends_)
      check_cuda(cudaMemcpyAsync(peer_pool_ + memory_.pool_offset(m.data), m.data, m.bytes, cudaMemcpyDeviceToDevice,
                                 stream_),
                 "cudaMemcpyAsync (into the peer's GPU)");
    const bool sending = !sends_.empty();
    if (sending) check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    if (sending && receiving_)
      MPI_Sendrecv(nullptr, 0, MPI_BYTE, peer_, kNoticeTag, nullptr, 0, MPI_BYTE, peer_, kNoticeTag, comm_,
                   MPI_STATUS_IGNORE);
    else if (sending)
      MPI_Send(nullptr, 0, MPI_BYTE, peer_, kNoticeTag, comm_);
    else if (receiving_)
      MPI_Recv(nullptr, 0, MPI_BYTE, peer_, kNoticeTag, comm_, MPI_STATUS_IGNORE);
    sends_.clear();
    receiving_ = false;
  }

 private:
  MPI_Comm comm_;
  int peer_;
  const MessageMemory& memory_;
  std::byte* peer_pool_;
  cudaStream_t stream_;
  std::vector<Message> sends_;
  bool receiving_ = false;
};

struct CloseIpcMapping {
  void operator()(std::byte* mapped) const { cudaIpcCloseMemHandle(mapped); }
};

class CudaIpcModule final : public Module {
 public:
  void setup(const ModuleSetup& setup) override {
    const RunOptions& options = setup.options;
    comm_ = PairComm(setup.team);
    const MPI_Comm comm = comm_.get();
    const int peer = comm_.peer();
    require_one_host("cudaIpc", gather_pair(comm, processor_name()));
    on_both_ranks(setup.team, [&] { gpu_ = open_gpu(setup.team, options); });
    peer_index_ = std::stoi(gather_pair(comm, std::to_string(gpu_.index))[static_cast<std::size_t>(peer)]);

    // Both pools rotate alike, so a message lands at the place it has in the sender's pool.
    std::uint64_t l2 = gpu_.l2_bytes;
    MPI_Allreduce(MPI_IN_PLACE, &l2, 1, MPI_UINT64_T, MPI_MAX, comm);
    const bool cold = options.cache == CacheState::cold;
    memory_ = make_device_message_memory(rotation_pool_bytes(setup.max_bytes, l2, cold), cold, setup.max_bytes);

    cudaIpcMemHandle_t mine{}, theirs{};
    check_cuda(cudaIpcGetMemHandle(&mine, memory_->receive_pool()), "cudaIpcGetMemHandle");
    MPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, peer, 0, &theirs, sizeof theirs, MPI_BYTE, peer, 0, comm,
                 MPI_STATUS_IGNORE);
    // Mapping the peer's memory is a first-touch cost: timed here, kept out of the curve.
    const auto started = std::chrono::steady_clock::now();
    void* mapped = nullptr;
    check_cuda(cudaIpcOpenMemHandle(&mapped, theirs, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    import_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    peer_pool_.reset(static_cast<std::byte*>(mapped));

    stream_ = CudaStream("cudaStreamCreateWithFlags (cudaIpc)");
    transport_.emplace(comm, peer, *memory_, peer_pool_.get(), stream_.get());
    patterns_.emplace("cudaIpc", comm_.rank(), options.window, *memory_, true, *transport_);
  }

  TrialTiming run(const TrialSpec& trial) override { return patterns_->run(trial); }

  void check(std::uint64_t bytes, std::uint64_t seed) override { patterns_->check(bytes, seed); }

  std::uint64_t host_bytes_needed(const RunOptions&, std::uint64_t max_bytes) const override {
    return max_bytes;  // the --check pattern's way through the host
  }

  std::string throughput_meaning(Pattern pattern) const override {
    return Module::throughput_meaning(pattern) + "; each transfer is one GPU's copy into the other's memory";
  }

  std::vector<std::pair<std::string, std::string>> placement() const override {
    std::vector<std::pair<std::string, std::string>> facts = gpu_facts(gpu_);
    int can_access = 0;
    const bool same_gpu = peer_index_ == gpu_.index;
    if (!same_gpu)
      check_cuda(cudaDeviceCanAccessPeer(&can_access, gpu_.index, peer_index_), "cudaDeviceCanAccessPeer");
    facts.emplace_back("peer_gpu", std::to_string(peer_index_));
    facts.emplace_back("peer_access", same_gpu ? "same GPU" : can_access ? "yes (NVLink or PCIe peer to peer)" : "no");
    facts.emplace_back("ipc_handle_import_s", seconds_fact(import_seconds_));
    facts.emplace_back("handshake", "an MPI message once the copying stream has synchronized");
    return facts;
  }

 private:
  // In the order they are built; destroyed the other way round.
  PairComm comm_;
  Gpu gpu_;
  int peer_index_ = 0;
  std::unique_ptr<MessageMemory> memory_;
  std::unique_ptr<std::byte, CloseIpcMapping> peer_pool_;
  double import_seconds_ = 0;
  CudaStream stream_;
  std::optional<IpcTransport> transport_;
  std::optional<PairPatterns> patterns_;
};

}  // namespace

std::unique_ptr<Module> make_cuda_ipc_module() { return std::make_unique<CudaIpcModule>(); }

}  // namespace npgpu
