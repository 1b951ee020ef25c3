#pragma once
// Where the ranks of an MPI module are (host name, IPv4 networks), gathered once in setup, and the
// network between two of them that MPI moves host memory over (mpi, mpiRma).
#include <mpi.h>

#include "net_common/ip_networks.hpp"
#include "npgpu/module.hpp"
#include "pair/pair_facts.hpp"

namespace npgpu {

class MpiPlaces {
 public:
  MpiPlaces() = default;
  explicit MpiPlaces(MPI_Comm comm);  // collective over comm

  bool same_host(int a, int b) const { return place(a).host == place(b).host; }

  // None on one host; between hosts, the one IP interface that reaches the peer when MPI has no
  // other way there (mpi_network_peak); unknown, with why, otherwise. Both directions for bidir.
  LinkPeak host_link_peak(int rank, int peer, Pattern pattern) const;

 private:
  Place place(int rank) const;

  RankFacts hosts_, networks_;  // by rank: host name, local_networks()
};

}  // namespace npgpu
