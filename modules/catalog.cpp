#include "npgpu/catalog.hpp"

#include <algorithm>

#include "cuda_copy/copy_options.hpp"
#include "factories.hpp"
#include "module_words.hpp"
#include "mpi/gpu_path.hpp"
#include "p2p/p2p_options.hpp"
#ifdef NPGPU_HAVE_CUDA
#include "cuda_common/gpu.hpp"
#endif
#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

// The GPU modules' factories and availability checks; null where this build has no CUDA, or no
// NCCL for the nccl module.
struct GpuModuleParts {
  std::unique_ptr<Module> (*cuda_memcpy)() = nullptr;
  std::unique_ptr<Module> (*cu_memcpy)() = nullptr;
  std::unique_ptr<Module> (*p2p)() = nullptr;
  std::unique_ptr<Module> (*cuda_ipc)() = nullptr;
  std::unique_ptr<Module> (*nccl)() = nullptr;
  std::string (*any_gpu_here)() = nullptr;
  std::string (*two_gpus_here)() = nullptr;
};
#if defined(NPGPU_HAVE_NCCL)
const GpuModuleParts kGpu{make_cuda_memcpy_module, make_cu_memcpy_module, make_p2p_module, make_cuda_ipc_module,
                          make_nccl_module,        cuda_unavailable_here, p2p_unavailable_here};
#elif defined(NPGPU_HAVE_CUDA)
const GpuModuleParts kGpu{make_cuda_memcpy_module, make_cu_memcpy_module, make_p2p_module, make_cuda_ipc_module,
                          nullptr,                 cuda_unavailable_here, p2p_unavailable_here};
#else
const GpuModuleParts kGpu{};
#endif

const std::vector<std::string> kCopyOptions{"--direction", "--memory", "--copy", "--api", "--device"};

// Every pair module: which rank pairs measure (--pairs) and the all-pairs matrix's options, then its own.
std::vector<std::string> pair_options(std::vector<std::string> own) {
  own.insert(own.begin(), {"--pairs", "--sizes", "--flag-below", "--sample", "--seed"});
  return own;
}

}  // namespace

const std::vector<CatalogEntry>& module_catalog() {
  static const std::vector<CatalogEntry> catalog{
      {{"memcpy", "host memory copy inside each rank (memcpy): the memory system's own speed, a ceiling for the others",
        Layout::per_rank, {Pattern::stream, Pattern::pingpong}, 64 * MiB, "", memcpy_words},
       make_memcpy_module, nullptr},
      {{"mpi", "MPI_Send/MPI_Recv between pairs of ranks, host or GPU buffers (shared memory, TCP, or whatever MPI picks)",
        Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 64 * MiB, "", mpi_words,
        pair_options({"--buffers", "--gpu-path", "--chunk", "--staging", "--device"}), resolve_mpi_options},
       make_mpi_module, nullptr},
      {{"cudaMemcpy", "copies between host memory and this rank's GPU, or inside it (CUDA runtime API, copy engine or SM kernel)",
        Layout::per_rank, {Pattern::stream, Pattern::pingpong, Pattern::bidir}, 512 * MiB, "CUDA", cuda_copy_words,
        kCopyOptions, resolve_cuda_memcpy_options},
       kGpu.cuda_memcpy, kGpu.any_gpu_here},
      {{"cuMemcpy", "the same copies through the CUDA driver API (cuMemcpyHtoD, DtoH, DtoD), copy engine",
        Layout::per_rank, {Pattern::stream, Pattern::pingpong, Pattern::bidir}, 512 * MiB, "CUDA", cuda_copy_words,
        kCopyOptions, resolve_cu_memcpy_options},
       kGpu.cu_memcpy, kGpu.any_gpu_here},
      {{"p2p", "copies between two GPUs of a node over peer access (NVLink or PCIe); run it with one rank",
        Layout::per_rank, {Pattern::stream, Pattern::pingpong, Pattern::bidir}, 512 * MiB, "CUDA", p2p_words,
        {"--copy", "--pairs", "--p2p"}, resolve_p2p_options},
       kGpu.p2p, kGpu.two_gpus_here},
      {{"tcp", "raw TCP sockets between pairs of ranks, host buffers: what the network stack gives before MPI adds anything",
        Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 64 * MiB, "", tcp_words,
        pair_options({"--socket-buffer", "--nodelay"})},
       make_tcp_module, nullptr},
      {{"cudaIpc", "one GPU copies into another rank's GPU memory, mapped by CUDA IPC: ranks of one node (NVLink or PCIe)",
        Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 256 * MiB, "CUDA", cuda_ipc_words,
        pair_options({"--device"})},
       kGpu.cuda_ipc, kGpu.any_gpu_here},
      {{"nccl", "ncclSend/ncclRecv between pairs of ranks' GPUs, communicator bootstrapped through MPI",
        Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 256 * MiB, "NCCL", nccl_words,
        pair_options({"--device"})},
       kGpu.nccl, kGpu.any_gpu_here},
  };
  return catalog;
}

const CatalogEntry& find_module(std::string_view name) {
  const auto& catalog = module_catalog();
  const auto found = std::find_if(catalog.begin(), catalog.end(),
                                  [&](const CatalogEntry& entry) { return entry.info.name == name; });
  if (found != catalog.end()) return *found;
  std::string known;
  for (const CatalogEntry& entry : catalog) known += (known.empty() ? "" : ", ") + entry.info.name;
  throw UsageError("--module '" + std::string(name) + "': unknown module; known modules: " + known);
}

std::string fact_of(const PlacementFacts& facts, const std::string& name) {
  const auto found = facts.find(name);
  return found == facts.end() ? std::string() : found->second;
}

PathWords path_words(const std::string& module, const PlacementFacts& facts) {
  for (const CatalogEntry& entry : module_catalog())
    if (entry.info.name == module) return entry.info.words(facts);
  const std::string unknown = " (this npgpu does not know the module '" + module + "')";
  return {"the path changes how it moves the bytes from this size" + unknown,
          "a faster way takes over from this size" + unknown, "the path's bandwidth changes from this size" + unknown,
          "something on this path" + unknown};
}

std::string describe_modules(int ranks) {
  std::string text = "module        ranks     patterns                  default upper  status\n";
  for (const CatalogEntry& entry : module_catalog()) {
    const ModuleInfo& info = entry.info;
    std::string patterns;
    for (Pattern p : info.patterns) patterns += (patterns.empty() ? "" : ",") + std::string(pattern_name(p));
    std::string status = "available";
    if (entry.make == nullptr) {
      status = "not built (this build has no " + info.build_needs + ")";
    } else if (entry.unavailable_here != nullptr) {
      const std::string why = entry.unavailable_here();
      if (!why.empty()) status = "built, cannot run here: " + why;
    }
    const char* layout = info.layout == Layout::pair ? "2 or more" : "1 or more";
    char line[256];
    std::snprintf(line, sizeof line, "%-13s %-9s %-25s %-14s %s\n", info.name.c_str(), layout,
                  patterns.c_str(), format_bytes(info.default_upper).c_str(), status.c_str());
    text += line;
    text += "              " + info.measures + "\n";
  }
  text += "(this listing ran with " + std::to_string(ranks) + (ranks == 1 ? " rank)\n" : " ranks)\n");
  return text;
}

}  // namespace npgpu
