#include "pair/pair_facts.hpp"

#include <cstdio>

#include "npgpu/errors.hpp"

namespace npgpu {

RankFacts gather_all(MPI_Comm comm, const std::string& mine) { return all_gather(comm, mine); }

std::string processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(length));
}

std::string seconds_fact(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", seconds);
  return text;
}

void require_one_host(const std::string& module, const RankFacts& hosts, const RankPairing& pairing) {
  for (const PairStep& step : pairing_steps(pairing))
    for (std::size_t rank = 0; rank < step.peers.size(); ++rank) {
      const int to = step.peers[rank].to;
      if (to < 0 || hosts[rank] == hosts[static_cast<std::size_t>(to)]) continue;
      throw UsageError("module " + module + " needs the two ranks of each pair on one host, and rank " +
                       std::to_string(rank) + " runs on " + hosts[rank] + ", rank " + std::to_string(to) + " on " +
                       hosts[static_cast<std::size_t>(to)] + ": pair ranks of one node (--pairs, or mpirun -np 2 --host " +
                       hosts[rank] + ":2)");
    }
}

void require_own_gpus(const std::string& module, const RankFacts& hosts, const RankFacts& gpus) {
  for (std::size_t a = 0; a < hosts.size(); ++a)
    for (std::size_t b = a + 1; b < hosts.size(); ++b)
      if (hosts[a] == hosts[b] && gpus[a] == gpus[b])
        throw UsageError("module " + module + " needs each rank on its own GPU, and ranks " + std::to_string(a) +
                         " and " + std::to_string(b) + " would both use GPU " + gpus[a] + " of " + hosts[a] +
                         ": give each rank its own (--device, or one rank per GPU)");
}

}  // namespace npgpu
