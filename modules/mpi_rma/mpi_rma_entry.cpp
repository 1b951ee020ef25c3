// mpiRma's catalog entry, and what a break or a shortfall means on its path.
#include "mpi_rma/rma_options.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

std::unique_ptr<Module> make_mpi_rma_module();  // mpi_rma_module.cpp

namespace {

// Open MPI's one-sided components: osc sm for a window MPI allocated over ranks of one node (a put or
// get is a memcpy by the initiator), osc rdma otherwise (the transport's RDMA, its single-copy
// mechanism between processes of a node, or active messages over TCP).
PathWords rma_words(const PlacementFacts&) {
  return {"MPI's one-sided path changes method at this size: osc rdma splits a put or get larger than its "
          "transport's limit (btl_*_put_limit, btl_*_get_limit) or turns from active messages to the transport's "
          "rendezvous; under osc sm the initiator's memcpy turns to non-temporal stores beyond a share of the "
          "last-level cache (ompi_info --param osc all --level 9 lists the limits)",
          "MPI's one-sided path takes a faster way from this size: osc rdma uses the transport's single copy (CMA, "
          "XPMEM, KNEM) or RDMA instead of copies through bounce buffers, or the memcpy's wider stores pay off",
          "the cost per byte changes from this size: messages outgrow the caches (the cache-cold rotation), or osc rdma "
          "pipelines fragments of another size",
          "MPI's one-sided path: a copy by the initiator through shared memory (osc sm), single copies between processes "
          "or active messages through a transport (osc rdma), or the flush, fence or notice that closes each window",
          {},
          "MPI's one-sided component: osc pt2pt acts out each put or get with two-sided messages, or osc rdma falls back "
          "to active messages where its transport has no single copy or RDMA (ompi_info --param osc all shows which "
          "are built; --mca osc rdma or ucx, with a transport that has RDMA, moves them directly), or MPI's "
          "settings"};
}

}  // namespace

NPGPU_MODULE(mpi_rma) {
  return {{{"mpiRma", "MPI one-sided MPI_Put or MPI_Get between pairs of ranks (--operation), passive or active target "
                      "(--sync), host or GPU buffers (--buffers D,D, with a CUDA-aware MPI)",
            Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 64 * MiB, "", rma_words,
            declare_rma_options},
           make_mpi_rma_module, nullptr}};
}

}  // namespace npgpu
