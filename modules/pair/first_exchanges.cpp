#include "pair/first_exchanges.hpp"

#include <chrono>
#include <vector>

extern char** environ;

namespace npgpu {
namespace {

// One byte each way with each peer of the step; every rank starts together.
double timed_exchange(MPI_Comm comm, const Peers& peers, Transport& transport, MessageMemory& memory) {
  MPI_Barrier(comm);
  const auto started = std::chrono::steady_clock::now();
  for (int peer : {peers.to, peers.from}) {
    if (peer < 0) continue;
    transport.receive({memory.receive_slot(1, peer == peers.to ? 0 : 1), 1, memory.on_device(), peer});
    transport.send({memory.send_slot(1, 0), 1, memory.on_device(), peer});
  }
  transport.complete();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

FirstExchanges time_first_exchanges(MPI_Comm comm, const RankPairing& pairing, int rank, Transport& transport,
                                    MessageMemory& memory) {
  const std::vector<PairStep> steps = pairing_steps(pairing);
  const auto mine = [&](const PairStep& step) { return step.peers[static_cast<std::size_t>(rank)]; };
  FirstExchanges seconds;
  for (const PairStep& step : steps) seconds.first_seconds += timed_exchange(comm, mine(step), transport, memory);
  for (const PairStep& step : steps) seconds.second_seconds += timed_exchange(comm, mine(step), transport, memory);
  return seconds;
}

std::string environment_settings(std::string_view prefix) {
  std::string settings;
  for (char** entry = environ; *entry != nullptr; ++entry)
    if (std::string_view(*entry).rfind(prefix, 0) == 0) settings += (settings.empty() ? "" : " ") + std::string(*entry);
  return settings.empty() ? "none" : settings;
}

}  // namespace npgpu
