#pragma once
// Every GPU of this node, their links to the host and to each other (npgpu info and the record).
#include "npgpu/gpu_inventory.hpp"

namespace npgpu {

// Never throws for a missing GPU or driver: `unavailable` says why there is nothing to list.
GpuInventory gpu_inventory();

}  // namespace npgpu
