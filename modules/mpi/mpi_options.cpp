#include "mpi/mpi_options.hpp"

#include <climits>

#include "cuda_common/gpu_options.hpp"
#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

std::shared_ptr<ModuleOptions> declare_mpi_options(CLI::App& group) {
  auto options = std::make_shared<MpiOptions>();
  group.add_option("--buffers", options->buffers, "Memory on rank 0,rank 1: H,H H,D D,H or D,D (H host, D device)")
      ->check(CLI::IsMember({"H,H", "H,D", "D,H", "D,D"}));
  group.add_option("--gpu-path", options->gpu_path, "With device buffers: auto, direct (needs a CUDA-aware MPI), staged")
      ->check(CLI::IsMember({"auto", "direct", "staged"}));
  group.add_option("--chunk", options->chunk_text, "staged: bytes per chunk of the pipeline (default 1M)");
  group.add_option("--staging", options->staging, "staged: pipelined (copies overlap sends) or naive (copy, then send)")
      ->check(CLI::IsMember({"pipelined", "naive"}));
  declare_device(group, options->device);
  return options;
}

void MpiOptions::finish() {
  if (!chunk_text.empty()) chunk = parse_size(chunk_text, "--chunk");
}

std::optional<Pattern> MpiOptions::resolve(const RunView&) {
  resolve_mpi_options(*this, kBuiltWithCuda, mpi_cuda_awareness());
  return std::nullopt;
}

void resolve_mpi_options(const MpiOptions& options, bool built_with_cuda, CudaAwareness awareness) {
  const bool device = side_uses_device(options.buffers, 0) || side_uses_device(options.buffers, 1);
  if (!device) {
    for (const char* name : {"--gpu-path", "--chunk", "--staging", "--device"})
      if (options.given(name))
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
      if (options.given(name))
        throw UsageError(std::string(name) + " applies to the staged path, and this run takes the direct one (" +
                         choice.why + ")");
  if (options.staging == "naive" && options.given("--chunk"))
    throw UsageError("--chunk applies to --staging pipelined: naive staging copies whole messages");
  if (options.chunk > static_cast<std::uint64_t>(INT_MAX))
    throw UsageError("--chunk " + std::to_string(options.chunk) + ": a chunk is at most 2147483647 bytes (one MPI message)");
}

}  // namespace npgpu
