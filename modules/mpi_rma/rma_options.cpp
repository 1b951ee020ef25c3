#include "mpi_rma/rma_options.hpp"

#include <CLI/CLI.hpp>

#include "cuda_common/gpu_options.hpp"
#include "npgpu/errors.hpp"

namespace npgpu {

std::shared_ptr<ModuleOptions> declare_rma_options(CLI::App& group) {
  auto options = std::make_shared<RmaOptions>();
  group.add_option("--operation", options->operation, "put (MPI_Put into the peer's window) or get (MPI_Get out of it)")
      ->check(CLI::IsMember({"put", "get"}));
  group.add_option("--sync", options->sync, "lock (passive target: MPI_Win_lock_all once, MPI_Win_flush) or fence "
                   "(active target: MPI_Win_fence)")->check(CLI::IsMember({"lock", "fence"}));
  group.add_option("--buffers", options->buffers, "Memory on both ranks of a pair: H,H (host) or D,D (GPU)")
      ->check(CLI::IsMember({"H,H", "H,D", "D,H", "D,D"}));
  declare_device(group, options->device);
  return options;
}

std::optional<Pattern> RmaOptions::resolve(const RunView&) {
  resolve_rma_buffers(*this, kBuiltWithCuda, mpi_cuda_awareness());
  return std::nullopt;
}

void resolve_rma_buffers(const RmaOptions& options, bool built_with_cuda, CudaAwareness awareness) {
  const std::string& buffers = options.buffers;
  if (buffers == "H,H") {
    if (options.given("--device")) throw UsageError("--device applies to GPU buffers only, and --buffers is H,H: use --buffers D,D");
    return;
  }
  if (buffers != "D,D")
    throw UsageError("--buffers " + buffers + ": module mpiRma takes H,H or D,D, both ranks of a pair alike (GPU memory is "
                     "seen by notices, host memory by polling); module mpi takes H,D and D,H");
  if (!is_cuda_aware(awareness))
    throw UsageError("--buffers " + buffers + ": GPU buffers need an MPI that takes GPU pointers in MPI_Put and MPI_Get, "
                     "and this MPI is not CUDA-aware (asked, it says " + describe(awareness) + "); use --buffers H,H, or module mpi, "
                     "which stages GPU buffers through host memory");
  if (!built_with_cuda)
    throw UsageError("--buffers " + buffers + ": GPU buffers need CUDA, and this build has none: rebuild with CUDA (see "
                     "README, 'Building')");
}

}  // namespace npgpu
