#pragma once
// Message memory of the pair modules: host memory here, GPU memory in CUDA builds.
#include <cstdint>
#include <memory>

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

}  // namespace npgpu
