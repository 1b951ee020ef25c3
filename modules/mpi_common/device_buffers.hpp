#pragma once
// The GPU side of the MPI modules (mpi, mpiRma): this rank's GPU and its GPU message memory. In
// builds without CUDA their options refuse GPU buffers first, and open_device_buffers throws
// UsageError.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "npgpu/run_view.hpp"
#include "npgpu/team.hpp"
#include "pair/transport.hpp"

namespace npgpu {

struct DeviceBuffers {
  std::unique_ptr<MessageMemory> memory;
  std::vector<std::pair<std::string, std::string>> facts;  // the GPU's, for the record
};

// Opens this rank's GPU (the node-local rank's, or `device` where it is not -1: --device) and its
// send and receive pools, rotated over more than its L2 cache when the run is cache-cold; `buffers`
// (--buffers) names the option in a refusal.
DeviceBuffers open_device_buffers(const Team& team, const RunView& run, const std::string& buffers, int device,
                                  std::uint64_t max_bytes);

}  // namespace npgpu
