#pragma once
// mpiRma's own options: put or get, passive or active target, and where the messages live.
#include <memory>
#include <string>

#include "mpi_common/cuda_awareness.hpp"
#include "npgpu/module_options.hpp"
#include "npgpu/run_view.hpp"
#include "pair/one_sided_transport.hpp"

namespace npgpu {

struct RmaOptions : ModuleOptions {
  std::optional<Pattern> resolve(const RunView& run) override;

  OneSidedOperation one_sided_operation() const { return operation == "get" ? OneSidedOperation::get : OneSidedOperation::put; }
  OneSidedSync one_sided_sync() const { return sync == "fence" ? OneSidedSync::fence : OneSidedSync::flush; }
  // Resolved: GPU memory on both ranks of a pair (D,D), else host memory (H,H).
  bool on_gpu() const { return buffers == "D,D"; }

  std::string operation = "put";  // put or get
  std::string sync = "lock";      // lock (MPI_Win_lock_all once, MPI_Win_flush) or fence (MPI_Win_fence)
  std::string buffers = "H,H";    // H,H: host memory on both ranks of a pair; D,D: GPU memory
  int device = -1;                // GPU index, instead of the node-local rank's
};

// mpiRma's option group (the catalog's DeclareOptions).
std::shared_ptr<ModuleOptions> declare_rma_options(CLI::App& group);

// resolve()'s test seam: GPU buffers need MPI_Put and MPI_Get to take GPU pointers, which only a
// CUDA-aware MPI does, and CUDA in this build; both ranks of a pair the same (a pair's exposed pools
// rotate alike, and GPU memory is seen by notices, host memory by polling). --device only with them.
void resolve_rma_buffers(const RmaOptions& options, bool built_with_cuda, CudaAwareness awareness);

}  // namespace npgpu
