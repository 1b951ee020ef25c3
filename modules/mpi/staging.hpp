#pragma once
// mpi's staged path for GPU buffers (--gpu-path staged, --staging, --chunk): the transport that
// staged_transfer.hpp implements, and what the record says of it. The transport needs CUDA; in
// builds without it resolve_mpi_options refuses GPU buffers first, and make_staged_transport
// throws UsageError.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>

#include "mpi/mpi_options.hpp"
#include "pair/transport.hpp"

namespace npgpu {

// The chunked staging transport of --staging and --chunk; `on_device`: this rank's messages are
// GPU memory (a host rank sends the same chunks straight from its memory and needs no GPU).
std::unique_ptr<Transport> make_staged_transport(MPI_Comm comm, const MpiOptions& options, std::uint64_t max_bytes,
                                                 bool on_device);
std::string staging_description(const MpiOptions& options, std::uint64_t max_bytes);

}  // namespace npgpu
