#pragma once
// The collective steps of a sweep: the trials, the data checks, and the steps between them. Every
// rank runs the same steps in the same order, so no rank waits forever; each wait is bounded
// through the guard and says whom it waits for, by rank and host ("rank 1 (host b) in a trial:
// module mpi, pattern pingpong, size 1 MiB"). Curves and matrices measure through these steps.
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "npgpu/clock.hpp"
#include "npgpu/module.hpp"
#include "npgpu/pairing.hpp"
#include "npgpu/team.hpp"
#include "results/run_record.hpp"
#include "run/roll_call.hpp"
#include "run/run_guard.hpp"

namespace npgpu {

// The ranks that measure at the same time, which of them time, and (pair modules) whom each talks to.
struct Group {
  std::vector<int> members;  // ranks that move bytes
  std::vector<int> timers;   // ranks whose timings are kept (a curve each, or a matrix cell each)
  std::vector<Peers> peers;  // pair modules: by rank; empty for per-rank modules
  int shift = 0;             // --pairs all: the step of the shift schedule
};

// The groups in the order they measure: the pairing's steps, or every rank together, or each alone.
std::vector<Group> measurement_groups(const RunRecord& record, const Team& team);

bool contains(const std::vector<int>& ranks, int rank);

// The size measured last in this sweep (or matrix step): what the next one is predicted from.
struct PreviousSize {
  std::uint64_t bytes = 0;
  double seconds_per_rep = 0;
  double seconds_per_transfer = 0;
};

class CollectiveSteps {
 public:
  // Collective: learns every rank's host, and starts the roll call.
  CollectiveSteps(Module& module, const RunOptions& options, const Team& team, const Clock& clock, RunGuard& guard,
                  std::mutex& record_lock);

  // Without --timeout a wait may last kBaseWaitSeconds + kWaitTrials x the trial it waits for.
  static constexpr double kBaseWaitSeconds = 30;
  static constexpr double kWaitTrials = 10;

  const Team& team() const { return team_; }
  const Clock& clock() const { return clock_; }  // what the trials time with
  const std::string& host_of(int rank) const { return hosts_.at(static_cast<std::size_t>(rank)); }

  // What the bounds on the next size's waits are predicted from; measuring a size sets it.
  const PreviousSize& previous() const { return previous_; }
  void set_previous(const PreviousSize& previous) { previous_ = previous; }

  // Pair modules: the module takes this rank's peers of the group's step.
  void select_peers(const Group& group);

  // Bounds the collective step that follows, and (with a roll call) says how to wait for it: a
  // rank idle while the others measure waits sleeping.
  Team::CollectiveWait expect_collective(std::uint64_t bytes, Pattern pattern, const char* step,
                                         RollCall::Polling polling = RollCall::Polling::busy);

  // One timed call on every member; the slowest timer's seconds per repetition on every rank.
  // A member that found corrupt data says so through the same collective step (an infinite time),
  // so the run costs nothing more until data is corrupt, and then fails on every rank together.
  enum class Damage { fails_the_run, ignored };
  double timed_reps(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t reps, std::uint64_t window,
                    TrialTiming* kept, const std::string& step, Damage damaged = Damage::fails_the_run);

  // The tail: `count` single repetitions on every member, each timed alone (a pair's own exchange
  // keeps its ranks in step, so nothing collective parts them); on a timer, each repetition's seconds
  // in order, empty elsewhere. Fails as timed_reps does.
  std::vector<double> timed_one_by_one(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t count,
                                       std::uint64_t window, const std::string& step);

  // --check: every byte of one message, outside the timing, then a collective step on what it found.
  void check_data(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t trial);

  // Rank 0 changes the record only here, holding the lock, so the guard can save it at any moment.
  template <typename Change>
  void on_root(Change change) {
    if (!team_.is_root()) return;
    const std::lock_guard<std::mutex> hold(record_lock_);
    change();
  }

  void idle() { guard_.idle(); }  // no wait bounded until the next step

 private:
  double wait_bound(std::uint64_t bytes) const;
  std::string peers_text(const Group& group) const;
  std::string rank_text(int rank) const;
  std::string others_text() const;
  std::string ranks_text(const std::vector<int>& ranks) const;
  std::string during(std::uint64_t bytes, Pattern pattern) const;
  // `timed` on the members, which returns a timer's seconds per repetition; the slowest timer's on
  // every rank, or every rank fails together where a member found damage.
  double slowest_of_members(const Group& group, std::uint64_t bytes, Pattern pattern, const std::string& step,
                            Damage damaged, const std::function<double()>& timed);
  [[noreturn]] void fail_together(const std::optional<std::string>& damage, const std::string& step,
                                  std::uint64_t bytes, Pattern pattern);

  Module& module_;
  const RunOptions& options_;
  const Team& team_;
  const Clock& clock_;
  RunGuard& guard_;
  std::mutex& record_lock_;
  std::vector<std::string> hosts_;  // every rank's, on every rank (the record has them on rank 0 only)
  std::optional<RollCall> roll_call_;
  PreviousSize previous_;
};

}  // namespace npgpu
