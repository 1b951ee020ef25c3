// Planted for the layers test: a module borrows from another module's folder.
#include "mpi/mpi_options.hpp"
#include "npgpu/module.hpp"
