#pragma once
// ucx's put: this rank's receive pool registered with UCX and offered to every partner (its address
// and remote key, exchanged over MPI), so that a message is put straight into the place it has in
// the peer's pool, as cudaIpc copies into a mapped pool. The endpoint is then flushed: once the
// flush completes the data is in the peer's memory, and a 0-byte tag message tells the peer so.
#include <mpi.h>
#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "pair/transport.hpp"
#include "ucx/ucx_worker.hpp"

namespace npgpu::ucx {

// Collective over `comm`: this rank's `pool` mapped for remote access, and every partner's mapped
// pool as a base address and an unpacked remote key.
class ExposedPools {
 public:
  ExposedPools(Worker& worker, MPI_Comm comm, std::byte* pool, std::uint64_t bytes, const std::vector<int>& partners);
  ~ExposedPools();
  ExposedPools(const ExposedPools&) = delete;
  ExposedPools& operator=(const ExposedPools&) = delete;

  struct Remote {
    std::uint64_t address;
    ucp_rkey_h key;
  };
  const Remote& of(int peer) const { return remotes_.at(peer); }

 private:
  Worker& worker_;
  ucp_mem_h mapped_ = nullptr;
  std::map<int, Remote> remotes_;  // by partner rank
};

// ucp_put_nbx of every queued send into the peer's pool, ucp_ep_flush_nbx, then the notice; a
// receive waits for the notice. All sends of one complete() go to one peer and all receives come
// from one (the patterns' shape), so one notice each way at most.
class PutTransport final : public Transport {
 public:
  PutTransport(Worker& worker, const ExposedPools& pools, const MessageMemory& memory, int rank)
      : worker_(worker), pools_(pools), memory_(memory), my_tag_(tag_of(rank)) {}
  void send(const Message& message) override { sends_.push_back(message); }
  void receive(const Message& message) override { receiving_from_ = message.peer; }
  void complete() override;

 private:
  Worker& worker_;
  const ExposedPools& pools_;
  const MessageMemory& memory_;
  ucp_tag_t my_tag_;
  std::vector<Message> sends_;
  std::vector<ucs_status_ptr_t> putting_;
  int receiving_from_ = -1;
};

}  // namespace npgpu::ucx
