#include "mpi/staging.hpp"

#include <algorithm>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

#ifdef NPGPU_HAVE_CUDA
#include "mpi/staged_transfer.hpp"
#endif

namespace npgpu {
namespace {

// Two bounce buffers keep the copy of one chunk overlapping the send of the other; four absorb
// the jitter of either.
constexpr std::uint64_t kPipelineSlots = 4;

std::uint64_t chunk_bytes(const MpiOptions& options, std::uint64_t max_bytes) {
  return options.staging == "naive" ? max_bytes : std::min(options.chunk, max_bytes);
}

}  // namespace

std::string staging_description(const MpiOptions& options, std::uint64_t max_bytes) {
  if (options.staging == "naive") return "naive: whole message copied off the GPU, sent, copied on (no overlap)";
  return "pipelined: " + format_bytes(chunk_bytes(options, max_bytes)) + " chunks through " +
         std::to_string(kPipelineSlots) + " pinned bounce buffers each way";
}

#ifdef NPGPU_HAVE_CUDA

std::unique_ptr<Transport> make_staged_transport(MPI_Comm comm, const MpiOptions& options, std::uint64_t max_bytes,
                                                 bool on_device) {
  const std::uint64_t slots = options.staging == "naive" ? 1 : kPipelineSlots;
  return std::make_unique<StagedTransport>(comm, StagingShape{chunk_bytes(options, max_bytes), slots}, on_device);
}

#else

std::unique_ptr<Transport> make_staged_transport(MPI_Comm, const MpiOptions&, std::uint64_t, bool) {
  throw UsageError("--gpu-path staged needs CUDA, and this build has none");
}

#endif

}  // namespace npgpu
