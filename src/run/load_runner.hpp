#pragma once
// The load of a run under load (--load): its ranks move the load module's windows round after round
// (LoadCycle) from the victims' start until their stop, and say what they moved. Signals cross the
// world communicator between the victims' first rank and the load's first rank only. Every wait is
// bounded by the run's guard, so a dead or hung load rank stops the run with exit 3, naming it.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "npgpu/clock.hpp"
#include "npgpu/module.hpp"
#include "npgpu/team.hpp"
#include "results/load_plan.hpp"
#include "run/run_guard.hpp"

namespace npgpu {

class LoadSignals {
 public:
  // `bound`: how long the victims' first rank waits for the load's answers, and the load ranks for
  // each other in a cycle.
  LoadSignals(MPI_Comm world, int load_root, int victim_root, RunGuard& guard, double bound);

  // The victims' first rank: starts the load and returns once it has warmed up.
  void start() const;
  // The victims' first rank: stops the load and returns what it moved.
  LoadResult stop() const;
  // The victims' first rank, when their isolated run failed: the load ends without starting.
  void cancel() const;

  // The load's first rank: whether the load is to start (false: cancelled).
  bool wait_for_start() const;
  void warmed_up() const;
  bool stop_asked();
  void moved(const LoadResult& result) const;

  RunGuard& guard() const { return guard_; }
  double bound() const { return bound_; }

 private:
  std::string load_root_text() const;

  MPI_Comm world_;
  int load_root_, victim_root_;
  RunGuard& guard_;
  double bound_;
  MPI_Request stop_ = MPI_REQUEST_NULL;
  int stop_word_ = 0;
};

// Every load rank: the module (set up over `team` with load_pairing) moves `load.bytes` in windows,
// cycle after cycle, until the victims stop it; the load's first rank talks to the victims through
// `signals`.
void make_load(Module& module, const Team& team, const LoadPlan& load, const Clock& clock, LoadSignals& signals);

}  // namespace npgpu
