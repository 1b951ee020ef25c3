#pragma once
// mpi's own options: where each side's messages live and, for GPU memory, how MPI moves them.
#include <cstdint>
#include <memory>
#include <string>

#include "mpi/gpu_path.hpp"
#include "npgpu/module_options.hpp"
#include "npgpu/run_view.hpp"

namespace npgpu {

// resolve(), the same on every rank: --buffers, --gpu-path, --chunk and --staging together, and
// whether this build and this MPI can do what they ask.
struct MpiOptions : ModuleOptions {
  void finish() override;
  std::optional<Pattern> resolve(const RunView& run) override;

  std::string buffers = "H,H";        // H(ost) or D(evice) memory on rank 0, rank 1
  std::string gpu_path = "auto";      // with D buffers: auto, direct (CUDA-aware MPI), staged
  std::string chunk_text;             // --chunk as given
  std::uint64_t chunk = 1024 * 1024;  // staged: bytes per pipelined chunk
  std::string staging = "pipelined";  // staged: pipelined or naive
  int device = -1;                    // GPU index, instead of the node-local rank's
};

// mpi's option group (the catalog's DeclareOptions).
std::shared_ptr<ModuleOptions> declare_mpi_options(CLI::App& group);

// resolve()'s test seam: the same with the build's and the MPI's answers given.
void resolve_mpi_options(const MpiOptions& options, bool built_with_cuda, CudaAwareness awareness);

}  // namespace npgpu
