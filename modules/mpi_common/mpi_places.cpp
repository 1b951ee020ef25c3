#include "mpi_common/mpi_places.hpp"

#include "npgpu/link_peaks.hpp"
#include "npgpu/network_peaks.hpp"

namespace npgpu {

MpiPlaces::MpiPlaces(MPI_Comm comm)
    : hosts_(gather_all(comm, processor_name())), networks_(gather_all(comm, local_networks())) {}

Place MpiPlaces::place(int rank) const {
  return {hosts_[static_cast<std::size_t>(rank)], networks_[static_cast<std::size_t>(rank)]};
}

LinkPeak MpiPlaces::host_link_peak(int rank, int peer, Pattern pattern) const {
  const Place mine = place(rank), theirs = place(peer);
  if (mine.host == theirs.host) return same_host_peak("MPI (shared memory, or TCP loopback where told to)");
  std::vector<std::string> toward;
  for (const std::string& address : addresses_toward(mine, theirs)) toward.push_back(interface_of(address));
  const LinkPeak one_way = mpi_network_peak(network_interfaces(), toward);
  return pattern == Pattern::bidir ? both_directions(one_way) : one_way;
}

}  // namespace npgpu
