#include "pair/pair_facts.hpp"

#include <cstdio>
#include <vector>

#include "npgpu/errors.hpp"

namespace npgpu {

PairFacts gather_pair(MPI_Comm comm, const std::string& mine) {
  const int length = static_cast<int>(mine.size());
  int lengths[2] = {};
  MPI_Allgather(&length, 1, MPI_INT, lengths, 1, MPI_INT, comm);
  const int offsets[2] = {0, lengths[0]};
  std::vector<char> all(static_cast<std::size_t>(lengths[0] + lengths[1]));
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths, offsets, MPI_CHAR, comm);
  return {std::string(all.data(), static_cast<std::size_t>(lengths[0])),
          std::string(all.data() + lengths[0], static_cast<std::size_t>(lengths[1]))};
}

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

void require_one_host(const std::string& module, const PairFacts& hosts) {
  if (hosts[0] != hosts[1])
    throw UsageError("module " + module + " needs both ranks on one host, and rank 0 runs on " + hosts[0] +
                     ", rank 1 on " + hosts[1] + ": start both on one node (e.g. mpirun -np 2 --host " + hosts[0] +
                     ":2)");
}

void require_two_gpus(const std::string& module, const PairFacts& hosts, const PairFacts& gpus) {
  if (hosts[0] == hosts[1] && gpus[0] == gpus[1])
    throw UsageError("module " + module + " needs the two ranks on two GPUs, and both would use GPU " + gpus[0] +
                     " of " + hosts[0] + ": give each rank its own (--device, or one rank per GPU)");
}

}  // namespace npgpu
