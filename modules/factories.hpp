#pragma once
// One factory per module, each defined in its own folder.
#include <memory>

#include "npgpu/module.hpp"

namespace npgpu {

std::unique_ptr<Module> make_memcpy_module();
std::unique_ptr<Module> make_mpi_module();
std::unique_ptr<Module> make_tcp_module();

}  // namespace npgpu
