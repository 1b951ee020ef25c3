#pragma once
// The load of a run under load (--load): its ranks move the load module's stream between their pairs
// from the victims' start until their stop, and say what they moved. Signals cross the world
// communicator between the victims' first rank and the load's first rank only.
#include <mpi.h>

#include <cstdint>

#include "npgpu/clock.hpp"
#include "npgpu/module.hpp"
#include "npgpu/team.hpp"
#include "results/load_plan.hpp"

namespace npgpu {

class LoadSignals {
 public:
  LoadSignals(MPI_Comm world, int load_root, int victim_root);

  // The victims' first rank: starts the load and returns once it has warmed up.
  void start() const;
  // The victims' first rank: stops the load and returns what it moved.
  LoadResult stop() const;

  // The load's first rank.
  void wait_for_start() const;
  void warmed_up() const;
  bool stop_asked();
  void moved(const LoadResult& result) const;

 private:
  MPI_Comm world_;
  int load_root_, victim_root_;
  MPI_Request stop_ = MPI_REQUEST_NULL;
  int stop_word_ = 0;
};

// Every load rank: the module (set up over `team`, its peers selected) streams `load.bytes` in
// windows until the victims stop it; the load's first rank talks to the victims through `signals`.
void make_load(Module& module, const Team& team, const LoadPlan& load, const Clock& clock, LoadSignals& signals);

}  // namespace npgpu
