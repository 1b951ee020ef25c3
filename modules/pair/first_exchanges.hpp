#pragma once
// What the pair modules whose library connects peers lazily, on first use (NCCL; UCX's wireup),
// share: the first exchanges with every step's peers, timed on their own so that connecting never
// reaches a curve, and the library's settings from the environment, for the record.
#include <mpi.h>

#include <string>
#include <string_view>

#include "npgpu/pairing.hpp"
#include "pair/transport.hpp"

namespace npgpu {

struct FirstExchanges {
  double first_seconds = 0;   // connecting every step's peers
  double second_seconds = 0;  // the same exchanges again, connected: what connecting cost is the difference
};

// Collective over `comm`: one byte each way with the peers of every step of `pairing`, every rank
// starting each step together, twice over; this rank's (`rank`'s) sums.
FirstExchanges time_first_exchanges(MPI_Comm comm, const RankPairing& pairing, int rank, Transport& transport,
                                    MessageMemory& memory);

// "NAME=VALUE NAME=VALUE" for the environment's variables whose names start with `prefix`
// ("NCCL_"), or "none".
std::string environment_settings(std::string_view prefix);

}  // namespace npgpu
