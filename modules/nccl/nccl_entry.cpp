// nccl's catalog entry, and what a break or a shortfall means on its path.
#include "cuda_common/gated_entry.hpp"
#include "cuda_common/gpu_options.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

std::unique_ptr<Module> make_nccl_module();  // nccl_module.cpp, built with NCCL only

namespace {

// ncclSend/ncclRecv: NCCL picks a protocol (LL, LL128, Simple), channels and a transport by size.
PathWords nccl_words(const PlacementFacts&) {
  return {"NCCL switches protocol at this size (LL, LL128, Simple; NCCL_PROTO fixes one) or changes its number of "
          "channels",
          "NCCL opens more channels or takes a faster protocol from this size (NCCL_MIN_NCHANNELS, NCCL_PROTO; "
          "NCCL_DEBUG=INFO says which)",
          "NCCL's protocol or channel count sets another bandwidth from this size (Simple's chunks for large messages, "
          "LL and LL128 for small ones)",
          "NCCL's transport and channels: P2P over NVLink or PCIe, shared memory through the host, or the network "
          "(NCCL_DEBUG=INFO names them), and how many channels it opens"};
}

}  // namespace

NPGPU_MODULE(nccl) {
  return {{{"nccl", "ncclSend/ncclRecv between pairs of ranks' GPUs, communicator bootstrapped through MPI",
            Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 256 * MiB, "NCCL", nccl_words,
            declare_device_options},
           NPGPU_NEEDS_NCCL(make_nccl_module, cuda_unavailable_here)}};
}

}  // namespace npgpu
