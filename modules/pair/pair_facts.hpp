#pragma once
// What the two ranks of a pair must know of each other before they move bytes: host names, GPUs.
// The checks are pure functions of the gathered facts, so every rank reaches the same verdict (and
// they are tested without a second host or a GPU).
#include <mpi.h>

#include <array>
#include <optional>
#include <string>

#include "npgpu/errors.hpp"
#include "npgpu/team.hpp"

namespace npgpu {

using PairFacts = std::array<std::string, 2>;  // by rank

// Collective over the pair's communicator: each rank's `mine`, on both ranks.
PairFacts gather_pair(MPI_Comm comm, const std::string& mine);
std::string processor_name();

// Seconds as a placement fact: text that keeps nine significant digits ("1.23456e-05").
std::string seconds_fact(double seconds);

// Runs a step that may refuse on one rank only (a GPU missing on one host), then throws on both
// ranks what either refused, so that neither goes on to a collective call the other never reaches.
template <typename Step>
void on_both_ranks(const Team& team, Step step) {
  std::optional<std::string> failure;
  try {
    step();
  } catch (const UsageError& error) {
    failure = error.what();
  }
  if (const std::optional<std::string> first = team.first_error(failure)) throw UsageError(*first);
}

// UsageError unless both ranks run on one host (cudaIpc maps one process's GPU memory into another).
void require_one_host(const std::string& module, const PairFacts& hosts);

// UsageError when both ranks would use the same GPU (`gpus`: an id unique on its host, such as
// the PCI bus id): NCCL refuses two ranks on one GPU.
void require_two_gpus(const std::string& module, const PairFacts& hosts, const PairFacts& gpus);

}  // namespace npgpu
