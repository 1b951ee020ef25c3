// The staging pipeline's arithmetic: how messages divide into chunks, and which steps overlap.
#include <gtest/gtest.h>

#include "mpi/chunk_pipeline.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

TEST(PlanChunks, FullChunksAndTheRest) {
  const ChunkPlan exact = plan_chunks(8 * MiB, MiB);
  EXPECT_EQ(exact.count, 8u);
  EXPECT_EQ(exact.last_bytes, MiB);
  const ChunkPlan rest = plan_chunks(8 * MiB + 1, MiB);
  EXPECT_EQ(rest.count, 9u);
  EXPECT_EQ(rest.last_bytes, 1u);
  const ChunkPlan small = plan_chunks(5, MiB);
  EXPECT_EQ(small.count, 1u);
  EXPECT_EQ(small.last_bytes, 5u);
  const ChunkPlan one_byte_chunks = plan_chunks(3, 1);
  EXPECT_EQ(one_byte_chunks.count, 3u);
  EXPECT_EQ(one_byte_chunks.last_bytes, 1u);
}

// Runs a pipeline to the end, every step finishing as soon as it is asked, and records which
// steps were under way at the same time.
struct Overlaps {
  bool a_of_next_during_b = false;  // A of chunk k+1 under way while B of chunk k is
  std::uint64_t most_in_flight = 0;
  std::uint64_t steps = 0;
};

Overlaps run_to_end(ChunkPipeline& pipeline) {
  Overlaps seen;
  while (!pipeline.done()) {
    if (const auto k = pipeline.ready_for_a()) {
      pipeline.started_a();
      ++seen.steps;
    }
    const auto a = pipeline.in_a();
    const auto b = pipeline.in_b();
    if (a && b && *a == *b + 1) seen.a_of_next_during_b = true;
    const std::uint64_t in_flight = (a ? 1 : 0) + (b ? 1 : 0);
    seen.most_in_flight = std::max(seen.most_in_flight, in_flight);
    // Finish the oldest B first, then the oldest A: the order that most keeps both busy.
    if (b) {
      pipeline.finished_b();
    } else if (a) {
      pipeline.finished_a();
    }
  }
  return seen;
}

TEST(ChunkPipeline, CopyOfTheNextChunkOverlapsTheSendOfThisOne) {
  ChunkPipeline pipeline(4);
  pipeline.add(10);
  ASSERT_EQ(pipeline.ready_for_a(), 0u);
  pipeline.started_a();
  EXPECT_EQ(pipeline.ready_for_a(), 1u) << "a second chunk may start before the first is through";
  pipeline.started_a();
  EXPECT_EQ(pipeline.in_a(), 0u);
  pipeline.finished_a();  // chunk 0's B starts (its send, or its copy onto the GPU)
  EXPECT_EQ(pipeline.in_b(), 0u);
  EXPECT_EQ(pipeline.in_a(), 1u) << "chunk 1's A runs while chunk 0's B does";
  const Overlaps seen = run_to_end(pipeline);
  EXPECT_TRUE(seen.a_of_next_during_b);
  EXPECT_EQ(seen.steps, 8u) << "every chunk started once";
}

TEST(ChunkPipeline, ABounceBufferIsReusedOnlyOnceItsChunkIsThrough) {
  ChunkPipeline pipeline(2);
  pipeline.add(3);
  pipeline.started_a();
  pipeline.started_a();
  EXPECT_FALSE(pipeline.ready_for_a()) << "both slots busy";
  pipeline.finished_a();
  EXPECT_FALSE(pipeline.ready_for_a()) << "chunk 0 left A but still holds its slot in B";
  pipeline.finished_b();
  EXPECT_EQ(pipeline.ready_for_a(), 2u);
  EXPECT_EQ(pipeline.slot(2), pipeline.slot(0));
}

TEST(ChunkPipeline, OneSlotOverlapsNothing) {
  ChunkPipeline naive(1);
  naive.add(5);
  const Overlaps seen = run_to_end(naive);
  EXPECT_FALSE(seen.a_of_next_during_b);
  EXPECT_EQ(seen.most_in_flight, 1u);
}

TEST(ChunkPipeline, StartsAgainAfterClear) {
  ChunkPipeline pipeline(4);
  pipeline.add(3);
  run_to_end(pipeline);
  EXPECT_TRUE(pipeline.done());
  pipeline.clear();
  EXPECT_TRUE(pipeline.done()) << "nothing queued";
  pipeline.add(2);
  EXPECT_FALSE(pipeline.done());
  EXPECT_EQ(pipeline.ready_for_a(), 0u);
}

}  // namespace
}  // namespace npgpu
