#include "module_words.hpp"

namespace npgpu {

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

}  // namespace npgpu
