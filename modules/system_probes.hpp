#pragma once
// The system facts only module code can find out (CUDA, MPI's CUDA extensions), for
// collect_system_info.
#include "npgpu/sysinfo.hpp"

namespace npgpu {

SystemProbes system_probes();

}  // namespace npgpu
