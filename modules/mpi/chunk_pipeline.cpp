#include "mpi/chunk_pipeline.hpp"

namespace npgpu {

ChunkPlan plan_chunks(std::uint64_t message_bytes, std::uint64_t chunk_bytes) {
  if (message_bytes == 0) return {0, 0};
  const std::uint64_t count = (message_bytes + chunk_bytes - 1) / chunk_bytes;
  return {count, message_bytes - (count - 1) * chunk_bytes};
}

std::optional<std::uint64_t> ChunkPipeline::ready_for_a() const {
  if (a_started_ == queued_ || a_started_ >= b_finished_ + slots_) return std::nullopt;
  return a_started_;
}

std::optional<std::uint64_t> ChunkPipeline::in_a() const {
  if (b_started_ == a_started_) return std::nullopt;
  return b_started_;
}

std::optional<std::uint64_t> ChunkPipeline::in_b() const {
  if (b_finished_ == b_started_) return std::nullopt;
  return b_finished_;
}

}  // namespace npgpu
