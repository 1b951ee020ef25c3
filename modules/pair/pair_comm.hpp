#pragma once
// A pair module's own duplicate of the team's communicator, so that its traffic never mixes with
// the driver's; freed with the module.
#include <mpi.h>

#include <utility>

#include "npgpu/team.hpp"

namespace npgpu {

class PairComm {
 public:
  PairComm() = default;
  explicit PairComm(const Team& team) {
    MPI_Comm_dup(team.comm(), &comm_);
    MPI_Comm_rank(comm_, &rank_);
  }
  ~PairComm() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  PairComm(const PairComm&) = delete;
  PairComm& operator=(PairComm&& other) noexcept {
    std::swap(comm_, other.comm_);
    std::swap(rank_, other.rank_);
    return *this;
  }

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
};

}  // namespace npgpu
