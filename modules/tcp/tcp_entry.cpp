// tcp's catalog entry, and what a break or a shortfall means on its path.
#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"
#include "tcp/tcp_options.hpp"

namespace npgpu {

std::unique_ptr<Module> make_tcp_module();  // tcp_module.cpp

namespace {

// One stream through the kernel's TCP stack; --nodelay off lets Nagle's algorithm hold small writes.
PathWords tcp_words(const PlacementFacts& facts) {
  const std::string nagle = fact_of(facts, "tcp_nodelay") == "off"
                                ? "; or Nagle's algorithm (--nodelay off) holds a small write back until the last one "
                                  "is acknowledged"
                                : "";
  return {"the message outgrows what the socket takes at once: the send buffer (--socket-buffer, net.ipv4.tcp_wmem) "
          "fills and the sender waits for acknowledgements, or the message spans more segments (the MTU) than "
          "segmentation offload (TSO, GSO) carries in one" + nagle,
          "segmentation offload (TSO, GSO) or receive coalescing (GRO) carries the larger writes in fewer pieces from "
          "this size" + nagle,
          "the stack's cost per byte changes from this size: segments of the MTU, segmentation offload, or a socket "
          "buffer that caps the bytes in flight (--socket-buffer)",
          "a single TCP stream: socket buffers (--socket-buffer, net.ipv4.tcp_rmem and tcp_wmem) smaller than the link's "
          "bandwidth-delay product, or the kernel's copies into and out of the socket"};
}

}  // namespace

NPGPU_MODULE(tcp) {
  return {{{"tcp", "raw TCP sockets between pairs of ranks, host buffers: what the network stack gives before MPI adds anything",
            Layout::pair, {Pattern::pingpong, Pattern::stream, Pattern::bidir}, 64 * MiB, "", tcp_words,
            declare_tcp_options, /*shares_a_receiver=*/true},
           make_tcp_module, nullptr}};
}

}  // namespace npgpu
