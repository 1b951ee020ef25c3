// mpi's catalog entry, and what a break or a shortfall means on its path.
#include "mpi/mpi_options.hpp"
#include "mpi/mpi_settings.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

std::unique_ptr<Module> make_mpi_module();  // mpi_module.cpp

namespace {

// Host buffers: the transport's protocols (Open MPI's BTLs: vader for shared memory, tcp, ...).
PathWords host_words() {
  return {"MPI switches protocol: from eager to rendezvous at its transport's eager limit (btl_vader_eager_limit, "
          "btl_tcp_eager_limit), a handshake before the data, or out of a fast path for small messages (inline "
          "sends up to btl_vader_max_inline_send); ompi_info --param btl all --level 9 lists these sizes",
          "MPI takes a faster way from this size: rendezvous with one copy through shared memory (CMA, XPMEM or KNEM) "
          "instead of eager's copy into and out of a shared buffer, or RDMA",
          "MPI sends the message in fragments from this size (the transport's max_send_size, a rendezvous pipeline), or "
          "a single-copy path of another bandwidth takes over",
          "MPI's protocol: copies through shared or registered buffers, its fragment sizes, or a slower transport than "
          "the fastest one here (--mca btl, ompi_info)"};
}

// GPU buffers handed to a CUDA-aware MPI.
PathWords direct_words() {
  return {"the CUDA-aware MPI switches protocol: eager to rendezvous, or from copies through host memory to a GPU path "
          "(CUDA IPC, GPUDirect RDMA) with a setup per message",
          "the CUDA-aware MPI takes a faster GPU path from this size (CUDA IPC between GPUs of a node, GPUDirect RDMA "
          "across nodes)",
          "the CUDA-aware MPI pipelines the message through staging buffers in chunks from this size, or a GPU path of "
          "another bandwidth takes over",
          "the CUDA-aware MPI's GPU path: staging through host memory, or a slower GPU transport than the link allows "
          "(UCX_TLS, the smcuda and cuda BTLs)"};
}

// GPU buffers that npgpu stages through pinned host buffers, chunk by chunk, around MPI's host path.
PathWords staged_words() {
  const PathWords host = host_words();
  return {"npgpu's staging starts one more chunk (--chunk) here, a GPU copy and a send more; or " + host.jump,
          "npgpu's staging pipeline overlaps the GPU copies with the sends from this size (--staging pipelined); or " +
              host.drop,
          "the staging pipeline's rate takes over: a GPU copy, a send and a GPU copy per chunk (--chunk); or " + host.slope,
          "the staging itself: every byte crosses host memory, with a GPU copy at each end besides MPI's transfer "
          "(--gpu-path direct avoids that where MPI is CUDA-aware)"};
}

// Below the layer under it (tcp or ucx between the same ranks): what MPI adds that the layer does not.
constexpr const char* kHostBelowLayer =
    "MPI's settings or its choice of transport: a setting that shrinks its socket buffers or fragments "
    "(btl_tcp_sndbuf, btl_tcp_rcvbuf, btl_tcp_max_send_size) or a slower transport than the layer under it (--mca btl, "
    "--mca pml); launching with Open MPI's defaults for them moves what the layer under it moves (ompi_info --param "
    "btl all --level 9 lists each with its default)";
constexpr const char* kDirectBelowLayer =
    "the CUDA-aware MPI does not move GPU memory by CUDA IPC here: it stages through host memory or takes a slower GPU "
    "transport (UCX_TLS without cuda_ipc, the smcuda BTL left out); UCX_TLS with cuda_ipc and cuda_copy, or Open MPI's "
    "defaults, move it over the GPUs' own link";

// Staged GPU memory below cudaIpc: whether this MPI could take GPU memory, as the run recorded it.
std::string staged_below_layer(const PlacementFacts& facts) {
  const std::string aware = fact_of(facts, "mpi_cuda_aware");
  if (aware.rfind("yes", 0) == 0)
    return "npgpu stages GPU memory through pinned host buffers around host MPI because --gpu-path staged asked it to; "
           "this MPI is CUDA-aware (" + aware + "), and --gpu-path direct lets it move GPU memory over the GPUs' own link";
  const std::string why = aware.rfind("no: ", 0) == 0 ? " (" + aware.substr(4) + ")" : "";
  return "this MPI is not CUDA-aware" + why + ", so npgpu stages GPU memory through pinned host buffers around host "
         "MPI; an Open MPI built with CUDA (and UCX) moves it over the GPUs' own link (NVLink, or PCIe peer to peer)";
}

PathWords mpi_words(const PlacementFacts& facts) {
  PathWords words;
  if (fact_of(facts, "messages") != "GPU memory") {
    words = host_words();
    words.set_switches = mpi_set_switches(fact_of(facts, "mpi_size_settings"));
    words.below_layer = kHostBelowLayer;
  } else if (fact_of(facts, "gpu_path").rfind("staged", 0) == 0) {
    words = staged_words();
    words.below_layer = staged_below_layer(facts);
  } else {
    words = direct_words();
    words.below_layer = kDirectBelowLayer;
  }
  return words;
}

}  // namespace

NPGPU_MODULE(mpi) {
  return {{{"mpi", "MPI_Send/MPI_Recv between pairs of ranks, host or GPU buffers (shared memory, TCP, or whatever MPI picks)",
            Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 64 * MiB, "", mpi_words,
            declare_mpi_options, /*shares_a_receiver=*/true},
           make_mpi_module, nullptr}};
}

}  // namespace npgpu
