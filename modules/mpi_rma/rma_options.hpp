#pragma once
// mpiRma's own options: put or get, passive or active target, and where the messages live.
#include <memory>
#include <string>

#include "mpi/gpu_path.hpp"
#include "npgpu/module_options.hpp"
#include "pair/one_sided_patterns.hpp"

namespace npgpu {

struct RmaOptions : ModuleOptions {
  void resolve(RunOptions& run) override;

  OneSidedOperation one_sided_operation() const { return operation == "get" ? OneSidedOperation::get : OneSidedOperation::put; }
  OneSidedSync one_sided_sync() const { return sync == "fence" ? OneSidedSync::fence : OneSidedSync::flush; }

  std::string operation = "put";  // put or get
  std::string sync = "lock";      // lock (MPI_Win_lock_all once, MPI_Win_flush) or fence (MPI_Win_fence)
  std::string buffers = "H,H";    // as mpi's: H(ost) or D(evice) memory on the first rank of a pair, the second
};

// mpiRma's option group (the catalog's DeclareOptions).
std::shared_ptr<ModuleOptions> declare_rma_options(CLI::App& group);

// resolve()'s test seam: GPU buffers need MPI_Put and MPI_Get to take GPU pointers, which only a
// CUDA-aware MPI does; and mpiRma's patterns poll and tag host memory, so even there it has none yet.
void resolve_rma_buffers(const std::string& buffers, CudaAwareness awareness);

}  // namespace npgpu
