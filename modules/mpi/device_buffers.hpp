#pragma once
// mpi's GPU side: this rank's GPU, its GPU message memory and the staging transport. The only part
// of mpi that needs CUDA; in builds without it resolve_mpi_options refuses GPU buffers first, and
// these throw UsageError.
#include <mpi.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi/mpi_options.hpp"
#include "npgpu/team.hpp"
#include "pair/transport.hpp"

namespace npgpu {

struct DeviceBuffers {
  std::unique_ptr<MessageMemory> memory;
  std::vector<std::pair<std::string, std::string>> facts;  // the GPU's, for the record
};

// Opens this rank's GPU (the node-local rank's, or `device` where it is not -1: --device) and its
// send and receive pools, rotated over more than its L2 cache when `cold`; `buffers` (--buffers)
// names the option in a refusal. mpi's and mpiRma's.
DeviceBuffers open_device_buffers(const Team& team, const std::string& buffers, int device, bool cold,
                                  std::uint64_t max_bytes);

// The chunked staging transport of --staging and --chunk; `on_device`: this rank's messages are
// GPU memory (a host rank sends the same chunks straight from its memory and needs no GPU).
std::unique_ptr<Transport> make_staged_transport(MPI_Comm comm, const MpiOptions& options, std::uint64_t max_bytes,
                                                 bool on_device);
std::string staging_description(const MpiOptions& options, std::uint64_t max_bytes);

}  // namespace npgpu
