// ucx's catalog entry, and what a break or a shortfall means on its path.
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"
#include "ucx/ucx_options.hpp"

namespace npgpu {

#ifdef NPGPU_HAVE_UCX
std::unique_ptr<Module> make_ucx_module();  // ucx_module.cpp, built with UCX only
constexpr MakeModule kMakeUcx = make_ucx_module;
#else
constexpr MakeModule kMakeUcx = nullptr;  // this build has no UCX
#endif

namespace {

// "; WORDS VALUE" for a placement fact the run recorded, "" where it has none.
std::string recorded(const PlacementFacts& facts, const std::string& name, const std::string& words) {
  const std::string value = fact_of(facts, name);
  return value.empty() || value == "unknown" ? "" : "; " + words + value;
}

// Tag send/receive: UCX picks a protocol by size (eager short, bcopy, zcopy; rendezvous) and
// transports for the pair (UCX_TLS); put: short, bcopy, zcopy on its RMA lanes. The endpoint's
// thresholds and lanes are in the record.
PathWords ucx_words(const PlacementFacts& facts) {
  const std::string protocols =
      recorded(facts, "ucx_tag_protocols", "here tag sends went (from each size in bytes, UCX's own notation) ");
  const std::string lanes = recorded(facts, "ucx_lanes", "here UCX's lanes to the peer were ");
  const std::string puts = recorded(facts, "ucx_put_protocols", "here puts went (UCX's own notation) ");
  return {"UCX switches tag protocol at this size: from eager short (the data inline with its header) to eager bcopy "
          "(copied through the transport's buffers), to one more fragment of the transport's segment (UCX_MM_SEG_SIZE, "
          "UCX_TCP_TX_SEG_SIZE, UCX_RC_*_SEG_SIZE), or to rendezvous, whose request and acknowledgement cost a round "
          "trip before the data moves (UCX_RNDV_THRESH sets where); or a put's protocol, from short (inline) to bcopy "
          "to zcopy (from registered memory)" + protocols + puts,
          "UCX takes a faster way from this size: rendezvous moves the data once (cma, knem or xpmem on one host, RDMA "
          "on InfiniBand and RoCE) where eager copied it in and out of shared buffers, or eager zero-copy sends from "
          "the registered user buffer (UCX_ZCOPY_THRESH)" + protocols,
          "UCX moves the data in another way from this size: more fragments of the transport's segment, or a "
          "rendezvous scheme of another bandwidth (UCX_RNDV_SCHEME: get or put zero-copy, or a pipeline of copies "
          "where no zero-copy transport reaches the peer)" + protocols,
          "UCX's transports for this pair (UCX_TLS; ucx_info -d lists what this host has): copies through shared "
          "memory (posix, sysv) where no single-copy transport (cma, knem, xpmem) may run, TCP through the kernel where "
          "RDMA (rc, ud, dc on InfiniBand and RoCE) is missing or not chosen, or rendezvous starting too early or too "
          "late (UCX_RNDV_THRESH)" + lanes,
          {},
          "UCX's choice of transport: a slower one than the kernel's TCP socket between the same ranks (UCX_TLS, or "
          "UCX's own TCP with small segments, UCX_TCP_TX_SEG_SIZE); unset, UCX_TLS lets UCX pick the fastest it has" +
              lanes + recorded(facts, "ucx_environment", "here UCX's settings were ")};
}

}  // namespace

NPGPU_MODULE(ucx) {
  return {{{"ucx", "UCX's UCP between pairs of ranks, host buffers: tag send/receive or put with a flush (--operation); what "
            "MPI adds over it",
            Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 64 * MiB, "UCX", ucx_words,
            declare_ucx_options},
           kMakeUcx, nullptr}};
}

}  // namespace npgpu
