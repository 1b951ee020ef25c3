#pragma once
// What the pair modules (mpi, tcp, cudaIpc, nccl) share: a message, where messages live, and how
// they move. A transport queues sends and receives and moves them all in complete(), so that one
// pattern code serves every path: MPI point-to-point, a staging pipeline, TCP sockets, CUDA IPC, NCCL.
#include <cstddef>
#include <cstdint>

#include "npgpu/buffers.hpp"

namespace npgpu {

struct Message {
  std::byte* data;
  std::uint64_t bytes;
  bool on_device;  // GPU memory: a staging transport copies it through the host
  int peer;        // the rank it goes to or comes from
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual void send(const Message& message) = 0;
  virtual void receive(const Message& message) = 0;
  // Returns once every queued message has left and arrived; the queue is then empty.
  virtual void complete() = 0;
  // Collective over every rank of the module: returns once no rank still reads a message that
  // arrived, for transports whose sender writes straight into the receiver's memory (cudaIpc),
  // where the next message could land before the receiver is done with the last.
  virtual void quiesce() {}
};

// A rank's message memory: a send pool and a receive pool, host or GPU, each rotated over more
// memory than the caches (cache-cold) or reused (cache-warm).
class MessageMemory {
 public:
  virtual ~MessageMemory() = default;
  virtual bool on_device() const = 0;
  // The --check pattern written into a message, and the first byte that differs from it.
  virtual void fill(std::byte* message, std::uint64_t bytes, std::uint64_t seed) = 0;
  virtual std::uint64_t first_mismatch(const std::byte* message, std::uint64_t bytes, std::uint64_t seed) = 0;
  // The test-only fault switch: corrupts one byte of a message that arrived.
  virtual void flip_byte(std::byte* message, std::uint64_t offset) = 0;

  std::byte* send_slot(std::uint64_t bytes, std::uint64_t index) const { return send_ + rotation_.offset(bytes, index); }
  std::byte* receive_slot(std::uint64_t bytes, std::uint64_t index) const {
    return receive_ + rotation_.offset(bytes, index);
  }
  std::byte* receive_pool() const { return receive_; }
  std::uint64_t pool_bytes() const { return pool_bytes_; }
  // Where a message of either pool starts within its pool: the same place in the peer's pools.
  std::uint64_t pool_offset(const std::byte* message) const {
    const bool in_send = message >= send_ && message < send_ + pool_bytes_;
    return static_cast<std::uint64_t>(message - (in_send ? send_ : receive_));
  }

 protected:
  void set_pools(std::byte* send, std::byte* receive, std::uint64_t pool_bytes, bool cold) {
    send_ = send;
    receive_ = receive;
    pool_bytes_ = pool_bytes;
    rotation_ = Rotation(pool_bytes, cold);
  }

 private:
  std::byte* send_ = nullptr;
  std::byte* receive_ = nullptr;
  std::uint64_t pool_bytes_ = 0;
  Rotation rotation_;
};

}  // namespace npgpu
