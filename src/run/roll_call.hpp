#pragma once
// Which ranks never came to a collective step. A collective cannot say whom it waits for, so a
// rank stopped or hung between trials left every other rank saying "the other ranks". Here a rank
// that has waited a while tells every other rank which step it reached, and names the ranks it
// has not heard from. Nothing is sent while steps finish quickly: a healthy run only polls.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "npgpu/team.hpp"

namespace npgpu {

class RollCall {
 public:
  explicit RollCall(const Team& team);  // collective: duplicates the team's communicator
  ~RollCall();
  RollCall(const RollCall&) = delete;
  RollCall& operator=(const RollCall&) = delete;

  // How a rank waits: polling without pause (it measures next, and must leave with the others), or
  // sleeping between polls (it is idle while other ranks measure, and must leave them the cores).
  enum class Polling { busy, sleeping };

  // Finishes `request`, a collective step every rank started in the same order. Past `bound`/4
  // this rank reports its arrival to the others, and `name_missing` hears, whenever it changes,
  // which ranks have not reported this step (a rank that already left a half-finished step
  // among them).
  void wait(MPI_Request& request, double bound, Polling polling,
            const std::function<void(const std::vector<int>&)>& name_missing);

 private:
  void report();           // to every other rank, once per step
  void collect_reports();  // every report that came; the receives posted again
  void post_receive(int rank);

  const Team& team_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::uint64_t step_ = 0;
  std::uint64_t sent_step_ = 0;         // the buffer of this rank's last reports
  std::vector<MPI_Request> sends_;      // this rank's last reports
  std::vector<std::uint64_t> reached_;  // the last step each rank reported
  std::vector<std::uint64_t> inbox_;    // one receive buffer per rank
  std::vector<MPI_Request> receives_;   // one open receive per other rank
};

}  // namespace npgpu
