#pragma once
// Message memory of the pair modules: host memory here, GPU memory in CUDA builds.
#include <cstdint>
#include <memory>

#include "npgpu/options.hpp"
#include "pair/transport.hpp"

namespace npgpu {

// Send and receive pools of `pool_bytes` each, touched now so page faults stay out of the timing.
std::unique_ptr<MessageMemory> make_host_message_memory(std::uint64_t pool_bytes, bool cold);

// The same with a receive pool the caller owns (memory an RMA library exposes to the peers, such as
// an MPI window's), at least `pool_bytes` long and alive as long as the message memory; touched now too.
std::unique_ptr<MessageMemory> make_host_message_memory(std::uint64_t pool_bytes, bool cold, std::byte* receive_pool);

#ifdef NPGPU_HAVE_CUDA
// The same on the current GPU; the --check pattern passes through a host buffer of max_bytes.
std::unique_ptr<MessageMemory> make_device_message_memory(std::uint64_t pool_bytes, bool cold, std::uint64_t max_bytes);
#endif

// Bytes of each host pool for messages up to max_bytes under the run's --cache: room to rotate
// over more than this host's last-level cache when cold, the largest message when warm.
std::uint64_t host_pool_bytes(const RunOptions& options, std::uint64_t max_bytes);

}  // namespace npgpu
