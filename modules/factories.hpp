#pragma once
// One factory per module, each defined in its own folder.
#include <memory>

#include "npgpu/module.hpp"

namespace npgpu {

std::unique_ptr<Module> make_memcpy_module();
std::unique_ptr<Module> make_mpi_module();
std::unique_ptr<Module> make_tcp_module();
// Built only with CUDA (NPGPU_HAVE_CUDA).
std::unique_ptr<Module> make_cuda_memcpy_module();
std::unique_ptr<Module> make_cu_memcpy_module();
std::unique_ptr<Module> make_p2p_module();
std::unique_ptr<Module> make_cuda_ipc_module();
// Built only with NCCL (NPGPU_HAVE_NCCL).
std::unique_ptr<Module> make_nccl_module();

}  // namespace npgpu
