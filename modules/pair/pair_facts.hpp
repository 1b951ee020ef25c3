#pragma once
// What the ranks of a pair module must know of each other before they move bytes: host names,
// GPUs. The checks are pure functions of the gathered facts and the pairing, so every rank reaches
// the same verdict (and they are tested without a second host or a GPU).
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "npgpu/errors.hpp"
#include "npgpu/pairing.hpp"
#include "npgpu/team.hpp"

namespace npgpu {

using RankFacts = std::vector<std::string>;  // by rank

// Collective over the module's communicator: each rank's `mine`, on every rank (O(N) each).
RankFacts gather_all(MPI_Comm comm, const std::string& mine);
std::string processor_name();

// Seconds as a placement fact: text that keeps nine significant digits ("1.23456e-05").
std::string seconds_fact(double seconds);

// Runs a step that may refuse on one rank only (a GPU missing on one host), then throws on every
// rank what any refused, so that none goes on to a collective call another never reaches.
template <typename Step>
void on_all_ranks(const Team& team, Step step) {
  std::optional<std::string> failure;
  try {
    step();
  } catch (const UsageError& error) {
    failure = error.what();
  }
  if (const std::optional<std::string> first = team.first_error(failure)) throw UsageError(*first);
}

// UsageError unless the two ranks of every pair the pairing forms run on one host (cudaIpc maps
// one process's GPU memory into another).
void require_one_host(const std::string& module, const RankFacts& hosts, const RankPairing& pairing);

// UsageError when two ranks would use the same GPU (`gpus`: an id unique on its host, such as
// the PCI bus id): NCCL refuses two ranks of one communicator on one GPU.
void require_own_gpus(const std::string& module, const RankFacts& hosts, const RankFacts& gpus);

}  // namespace npgpu
