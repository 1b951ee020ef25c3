#pragma once
// GPU messages through pinned host bounce buffers, chunk by chunk (CUDA builds only).
// Sending, the device->host copy of chunk k+1 overlaps the MPI send of chunk k; receiving, the
// host->device copy of chunk k overlaps the receive of chunk k+1 (ChunkPipeline says when).
// Host messages take the same chunks straight from their memory, so both sides agree on the
// messages MPI sees whichever memory each side has.
#include <cuda_runtime.h>
#include <mpi.h>

#include <memory>
#include <vector>

#include "cuda_common/memory.hpp"
#include "mpi/chunk_pipeline.hpp"
#include "pair/cuda_stream.hpp"
#include "pair/transport.hpp"

namespace npgpu {

struct StagingShape {
  std::uint64_t chunk_bytes;  // pipelined: --chunk; naive: the largest message, so one chunk each
  std::uint64_t slots;        // bounce buffers per direction; naive: 1
};

class StagedTransport final : public Transport {
 public:
  // `on_device`: this rank's messages are GPU memory (else no CUDA call is made at all).
  StagedTransport(MPI_Comm comm, StagingShape shape, bool on_device);
  void send(const Message& message) override { outgoing_.add(message); }
  void receive(const Message& message) override { incoming_.add(message); }
  void complete() override;

 private:
  enum class Way { out, in };

  // One direction's chunks, bounce buffers, copy stream and MPI requests.
  class Direction {
   public:
    Direction(Way way, MPI_Comm comm, StagingShape shape, bool on_device);
    ~Direction();
    Direction(const Direction&) = delete;
    Direction& operator=(const Direction&) = delete;
    void add(const Message& message);
    bool advance();  // one round of progress without blocking; true once every chunk is through

   private:
    struct Chunk {
      std::byte* data;
      std::uint64_t bytes;
      bool on_device;
      int peer;
    };
    std::byte* bounce(std::uint64_t chunk) { return bounce_.data() + pipeline_.slot(chunk) * shape_.chunk_bytes; }
    void start_copy(std::uint64_t chunk);
    bool copy_done(std::uint64_t chunk);
    void start_mpi(std::uint64_t chunk);
    bool mpi_done(std::uint64_t chunk);

    Way way_;
    MPI_Comm comm_;
    StagingShape shape_;
    ChunkPipeline pipeline_;
    std::vector<Chunk> chunks_;
    HostMemory bounce_;  // slots x chunk bytes, pinned
    CudaStream stream_;
    std::vector<cudaEvent_t> copied_;    // per slot
    std::vector<MPI_Request> requests_;  // per slot
  };

  Direction outgoing_;
  Direction incoming_;
};

}  // namespace npgpu
