#include "mpi/gpu_path.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <algorithm>
#include <climits>

#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

bool given(const RunOptions& options, const char* name) {
  const auto& names = options.module_options_given;
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

CudaAwareness mpi_cuda_awareness() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return {true, MPIX_Query_cuda_support() == 1};
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  return {false, MPIX_Query_cuda_support() == 1};
#else
  return {};  // no way to ask this MPI: assume it is not CUDA-aware
#endif
}

bool is_cuda_aware(CudaAwareness awareness) { return awareness.built && awareness.at_run_time; }

namespace {

std::string why_not_aware(CudaAwareness awareness) {
  if (awareness.built) return "built with CUDA support, but MPIX_Query_cuda_support() says it is off";
  return "built without CUDA support: MPIX_CUDA_AWARE_SUPPORT is 0 or missing in <mpi-ext.h>";
}

}  // namespace

std::string describe(CudaAwareness awareness) {
  if (is_cuda_aware(awareness)) return "yes: built with CUDA support, enabled at run time";
  return "no: " + why_not_aware(awareness);
}

GpuPathChoice choose_gpu_path(const std::string& requested, CudaAwareness awareness) {
  const bool aware = is_cuda_aware(awareness);
  if (requested == "direct") {
    if (!aware)
      throw UsageError("--gpu-path direct: this MPI is not CUDA-aware (" + why_not_aware(awareness) +
                       "), so it cannot take GPU pointers; use --gpu-path staged or auto");
    return {GpuPath::direct, "direct (asked for): MPI moves the GPU buffers itself"};
  }
  if (requested == "staged")
    return {GpuPath::staged, "staged (asked for): copies through pinned host buffers around host MPI"};
  if (aware) return {GpuPath::direct, "direct (auto: MPI is CUDA-aware)"};
  return {GpuPath::staged, "staged (auto: MPI is not CUDA-aware, so copies go through pinned host buffers)"};
}

bool side_uses_device(const std::string& buffers, int side) { return buffers.at(side == 0 ? 0 : 2) == 'D'; }

void resolve_mpi_options(RunOptions& options) {
#ifdef NPGPU_HAVE_CUDA
  resolve_mpi_options(options, true, mpi_cuda_awareness());
#else
  resolve_mpi_options(options, false, mpi_cuda_awareness());
#endif
}

void resolve_mpi_options(RunOptions& options, bool built_with_cuda, CudaAwareness awareness) {
  const bool device = side_uses_device(options.buffers, 0) || side_uses_device(options.buffers, 1);
  if (!device) {
    for (const char* name : {"--gpu-path", "--chunk", "--staging", "--device"})
      if (given(options, name))
        throw UsageError(std::string(name) + " applies to GPU buffers only, and --buffers is " + options.buffers +
                         ": use --buffers H,D, D,H or D,D");
    return;
  }
  const GpuPathChoice choice = choose_gpu_path(options.gpu_path, awareness);
  if (!built_with_cuda)
    throw UsageError("--buffers " + options.buffers + ": GPU buffers need CUDA, and this build has none: rebuild with "
                     "CUDA (see README, 'Building')");
  if (choice.path == GpuPath::direct)
    for (const char* name : {"--chunk", "--staging"})
      if (given(options, name))
        throw UsageError(std::string(name) + " applies to the staged path, and this run takes the direct one (" +
                         choice.why + ")");
  if (options.staging == "naive" && given(options, "--chunk"))
    throw UsageError("--chunk applies to --staging pipelined: naive staging copies whole messages");
  if (options.chunk > static_cast<std::uint64_t>(INT_MAX))
    throw UsageError("--chunk " + std::to_string(options.chunk) + ": a chunk is at most 2147483647 bytes (one MPI message)");
}

}  // namespace npgpu
