#pragma once
// The sizes at which this MPI is set to change protocol, read from the MPI itself through its tool
// interface (MPI_T control variables, which Open MPI fills from its MCA parameters: the defaults,
// --mca on the command line, OMPI_MCA_* and the parameter files), so that the report can say which
// setting a break of the curve probably is, and look at the curve where a setting says a switch is.
#include <string>
#include <vector>

#include "npgpu/path_words.hpp"

namespace npgpu {

// "btl_vader_eager_limit=4096 btl_vader_max_inline_send=256 ...": the size settings of Open MPI's
// shared-memory (vader; sm from Open MPI 5) and TCP transports that this MPI has (a transport not
// opened has none), in its order; "" where MPI_T gives none. Call between MPI_Init and MPI_Finalize.
std::string mpi_size_settings();

// The switches those settings say, as the record keeps them: a shared-memory setting applies to
// ranks of one host; a TCP one between hosts, and on one host too where no shared-memory transport
// was opened (--mca btl tcp,self). Settings of one size and reach are one switch.
std::vector<SetSwitch> mpi_set_switches(const std::string& settings);

}  // namespace npgpu
