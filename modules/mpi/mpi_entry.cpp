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

PathWords mpi_words(const PlacementFacts& facts) {
  if (fact_of(facts, "messages") == "GPU memory")
    return fact_of(facts, "gpu_path").rfind("staged", 0) == 0 ? staged_words() : direct_words();
  PathWords words = host_words();
  words.set_switches = mpi_set_switches(fact_of(facts, "mpi_size_settings"));
  return words;
}

}  // namespace

NPGPU_MODULE(mpi) {
  return {{{"mpi", "MPI_Send/MPI_Recv between pairs of ranks, host or GPU buffers (shared memory, TCP, or whatever MPI picks)",
            Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 64 * MiB, "", mpi_words,
            declare_mpi_options},
           make_mpi_module, nullptr}};
}

}  // namespace npgpu
