#include "mpi_rma/rma_options.hpp"

#include <CLI/CLI.hpp>

#include "npgpu/errors.hpp"

namespace npgpu {

std::shared_ptr<ModuleOptions> declare_rma_options(CLI::App& group) {
  auto options = std::make_shared<RmaOptions>();
  group.add_option("--operation", options->operation, "put (MPI_Put into the peer's window) or get (MPI_Get out of it)")
      ->check(CLI::IsMember({"put", "get"}));
  group.add_option("--sync", options->sync, "lock (passive target: MPI_Win_lock_all once, MPI_Win_flush) or fence "
                   "(active target: MPI_Win_fence)")->check(CLI::IsMember({"lock", "fence"}));
  group.add_option("--buffers", options->buffers, "Memory on rank 0,rank 1: H,H H,D D,H or D,D (H host, D device)")
      ->check(CLI::IsMember({"H,H", "H,D", "D,H", "D,D"}));
  return options;
}

void RmaOptions::resolve(RunOptions&) { resolve_rma_buffers(buffers, mpi_cuda_awareness()); }

void resolve_rma_buffers(const std::string& buffers, CudaAwareness awareness) {
  if (buffers == "H,H") return;
  if (!is_cuda_aware(awareness))
    throw UsageError("--buffers " + buffers + ": GPU buffers need an MPI that takes GPU pointers in MPI_Put and MPI_Get, "
                     "and this MPI is not CUDA-aware (asked, it says " + describe(awareness) + "); use --buffers H,H, or module mpi, "
                     "which stages GPU buffers through host memory");
  throw UsageError("--buffers " + buffers + ": this MPI is CUDA-aware, but module mpiRma moves host memory only (its "
                   "patterns poll and tag bytes where they land); use --buffers H,H, or module mpi with --gpu-path direct");
}

}  // namespace npgpu
