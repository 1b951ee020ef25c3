#pragma once
// The ranks of one run and the few collective steps the driver needs between trials.
// Modules that move bytes over MPI take their own duplicate of comm() so their traffic never
// mixes with the driver's.
#include <mpi.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace npgpu {

// Collective over `comm`: every rank's text, in rank order, on every rank (O(N) each).
std::vector<std::string> all_gather(MPI_Comm comm, const std::string& mine);

class Team {
 public:
  explicit Team(MPI_Comm comm);

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  MPI_Comm comm() const { return comm_; }

  // How the driver's steps between trials wait: MPI's blocking call by default; a RollCall's
  // wait (roll_call.hpp) finds out meanwhile which ranks never came.
  using CollectiveWait = std::function<void(MPI_Request&)>;
  void barrier(const CollectiveWait& wait = {}) const;
  // This rank and each of `partners` (who name it in turn) go on together: a message of no bytes
  // each way with every partner, all posted at once, so no order of partners can deadlock.
  void meet(const std::vector<int>& partners) const;
  double max(double value, const CollectiveWait& wait = {}) const;
  bool any(bool value, const CollectiveWait& wait = {}) const;
  std::uint64_t broadcast(std::uint64_t value) const;  // from rank 0

  // Every rank's vector, concatenated in rank order, on rank 0 (empty elsewhere).
  std::vector<double> gather(const std::vector<double>& mine, const CollectiveWait& wait = {}) const;
  std::vector<std::string> gather(const std::string& mine) const;

  // Collective: the first error any rank saw ("rank N: ..." when not rank 0), on every rank.
  // Lets every rank stop together instead of one waiting forever for a peer that gave up.
  std::optional<std::string> first_error(const std::optional<std::string>& mine) const;

 private:
  void reduce(const void* mine, void* result, MPI_Datatype type, MPI_Op op, const CollectiveWait& wait) const;

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace npgpu
