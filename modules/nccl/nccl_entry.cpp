// nccl's catalog entry, and what a break or a shortfall means on its path.
#include "cuda_common/gated_entry.hpp"
#include "cuda_common/gpu_options.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

std::unique_ptr<Module> make_nccl_module();  // nccl_module.cpp, built with NCCL only

namespace {

// ncclSend/ncclRecv: NCCL picks a protocol (LL, LL128, Simple), channels and a transport by size.
// "; here NCCL's settings were ..." where the run recorded any.
std::string recorded_environment(const PlacementFacts& facts) {
  const std::string settings = fact_of(facts, "nccl_environment");
  return settings.empty() || settings == "none" ? "" : "; here NCCL's settings were " + settings;
}

PathWords nccl_words(const PlacementFacts& facts) {
  return {"NCCL switches protocol at this size (LL, LL128, Simple; NCCL_PROTO fixes one) or changes its number of "
          "channels",
          "NCCL opens more channels or takes a faster protocol from this size (NCCL_MIN_NCHANNELS, NCCL_PROTO; "
          "NCCL_DEBUG=INFO says which)",
          "NCCL's protocol or channel count sets another bandwidth from this size (Simple's chunks for large messages, "
          "LL and LL128 for small ones)",
          "NCCL's transport and channels: P2P over NVLink or PCIe, shared memory through the host, or the network "
          "(NCCL_DEBUG=INFO names them), and how many channels it opens",
          {},
          "NCCL does not go peer to peer between these GPUs: it goes through host memory (SHM) or the network, as "
          "NCCL_P2P_DISABLE, NCCL_P2P_LEVEL or a topology it misreads make it (NCCL_DEBUG=INFO names the transport), "
          "or opens too few channels for the link (NCCL_MIN_NCHANNELS); NCCL's defaults on GPUs that reach each other "
          "peer to peer take the GPUs' own link" + recorded_environment(facts)};
}

}  // namespace

NPGPU_MODULE(nccl) {
  return {{{"nccl", "ncclSend/ncclRecv between pairs of ranks' GPUs, communicator bootstrapped through MPI",
            Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 256 * MiB, "NCCL", nccl_words,
            declare_device_options},
           NPGPU_NEEDS_NCCL(make_nccl_module, cuda_unavailable_here)}};
}

}  // namespace npgpu
