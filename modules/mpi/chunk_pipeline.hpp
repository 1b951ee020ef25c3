#pragma once
// The staging pipeline's arithmetic, kept apart from CUDA and MPI so any machine can test it.
#include <cstdint>
#include <optional>

namespace npgpu {

// A message cut into chunks: how many, and the size of the last (the others are full).
struct ChunkPlan {
  std::uint64_t count;
  std::uint64_t last_bytes;
};
ChunkPlan plan_chunks(std::uint64_t message_bytes, std::uint64_t chunk_bytes);

// Chunks pass through `slots` bounce buffers in two steps, A then B. Sending: A copies the chunk
// from the GPU into a bounce buffer, B sends it. Receiving: A receives it into a bounce buffer, B
// copies it to the GPU. Chunk k uses bounce buffer k % slots, so its A may start only once chunk
// k - slots has finished B. With two slots or more, A of chunk k+1 runs while B of chunk k does:
// the copy of the next chunk overlaps the send of this one. With one slot nothing overlaps (naive).
// Steps finish in the order they started (one CUDA stream, MPI's ordered messages).
class ChunkPipeline {
 public:
  explicit ChunkPipeline(std::uint64_t slots) : slots_(slots) {}

  void add(std::uint64_t chunks) { queued_ += chunks; }
  std::uint64_t slot(std::uint64_t chunk) const { return chunk % slots_; }

  // The chunk whose A may start now.
  std::optional<std::uint64_t> ready_for_a() const;
  void started_a() { ++a_started_; }
  // The oldest chunk in A; once its A finishes, its B starts.
  std::optional<std::uint64_t> in_a() const;
  void finished_a() { ++b_started_; }
  // The oldest chunk in B.
  std::optional<std::uint64_t> in_b() const;
  void finished_b() { ++b_finished_; }

  bool done() const { return b_finished_ == queued_; }
  void clear() { queued_ = a_started_ = b_started_ = b_finished_ = 0; }

 private:
  std::uint64_t slots_;
  std::uint64_t queued_ = 0;
  std::uint64_t a_started_ = 0;
  std::uint64_t b_started_ = 0;  // = chunks whose A finished
  std::uint64_t b_finished_ = 0;
};

}  // namespace npgpu
