#include "run/curve_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "npgpu/catalog.hpp"
#include "npgpu/sizes.hpp"
#include "results/run_data.hpp"
#include "report/break_checks.hpp"
#include "report/set_switches.hpp"
#include "run/nvtx.hpp"
#include "run/size_measurement.hpp"
#include "run/time_left.hpp"

namespace npgpu {
namespace {

constexpr std::uint64_t kFirstProbeBytes = 1 << 20;
constexpr std::size_t kProbeRepetitions = 5;
constexpr std::uint64_t kProbeAgainBelow = 16;

class CurveSweep {
 public:
  CurveSweep(CollectiveSteps& steps, Module& module, RunRecord& record, const std::vector<Reporter*>& reporters,
             DriftingClock* drifting)
      : steps_(steps), module_(module), record_(record), options_(record.options), reporters_(reporters),
        drifting_(drifting), size_(steps, module, record.options), groups_(measurement_groups(record, steps.team())) {}

  void run() {
    const std::vector<std::string> variants = module_.variants();
    const std::size_t sweeps = groups_.size() * variants.size();
    progress_.total = sweeps * record_.schedule.size();
    std::size_t sweep = 0;
    // The runs to follow make the same sweeps again: as many more sweeps after each.
    const std::size_t sweeps_to_follow = sweeps * options_.runs_to_follow;
    for (const Group& group : groups_)
      for (std::size_t v = 0; v < variants.size(); ++v, ++sweep) {
        module_.select_variant(v);
        steps_.select_peers(group);
        sweep_sizes(group, variants[v], sweeps - sweep - 1 + sweeps_to_follow);
      }
  }

 private:
  // How a size was measured in the sweep, the same on every rank: what measuring it again repeats.
  struct HowMeasured {
    std::uint64_t reps = 0, window = 1;
  };

  // One curve per timing rank of the group, over the whole schedule.
  void sweep_sizes(const Group& group, const std::string& variant, std::size_t sweeps_after) {
    const std::size_t first_curve = record_.curves.size();
    steps_.on_root([&] {
      for (int rank : group.timers) {
        const int peer = group.peers.empty() ? -1 : group.peers[static_cast<std::size_t>(rank)].to;
        record_.curves.push_back({rank, steps_.host_of(rank), variant, {}, {}, peer,
                                  peer < 0 ? "" : steps_.host_of(peer), {}, {}});
      }
    });
    size_.start_sweep();
    probe_ = probe_large_sizes(group);
    std::vector<HowMeasured> swept;
    const double sweep_started = steps_.clock().now();
    double measured_until = sweep_started, between_sizes = 0;
    bool probed_again = false;
    for (std::size_t index = 0; index < record_.schedule.size(); ++index) {
      const std::uint64_t bytes = record_.schedule[index];
      const NvtxRange range(options_.nvtx, "npgpu " + (variant.empty() ? "" : variant + " ") + format_bytes(bytes));
      if (drifting_ != nullptr && bytes >= options_.drift->from_bytes) drifting_->start();
      if (!probed_again && probe_.seconds_per_transfer > 0 && bytes * kProbeAgainBelow >= probed_bytes_) {
        probe_ = probe_again(group, probe_);
        probed_again = true;
      }
      const double started = steps_.clock().now();
      if (index > 0) between_sizes += started - measured_until;
      const std::uint64_t window = size_.choose_window(group, bytes, options_.pattern);
      SizeResult mine = size_.measure(group, bytes, options_.pattern, window);
      measured_until = steps_.clock().now();
      mine.wall_seconds = measured_until - started;
      swept.push_back({mine.reps, window});
      ++progress_.done;
      collect(group, mine, first_curve, [&] {
        const std::size_t sizes = index + 1;
        if (sizes == record_.schedule.size() || sizes == record_.schedule.size() / 2) choose_sizes_again(first_curve, sizes);
        progress_.seconds_left = estimate_seconds_left(index, sweeps_after, sweep_started,
                                                       index > 0 ? between_sizes / static_cast<double>(index) : 0);
        // The sizes measured again come after the last one, where the console says how many. Until
        // then those the choice halfway through the first sweep made are foretold, once swept.
        const bool last = sizes == record_.schedule.size();
        progress_.measured_again = last ? again_.size() : 0;
        progress_.seconds_left += seconds_to_measure_again(first_curve, swept, last ? again_ : chosen_halfway_);
        for (Reporter* reporter : reporters_) reporter->size_done(record_, first_curve, index, progress_);
      });
    }
    measure_breaks_again(group, first_curve, swept);
    collect_link_peaks(group, first_curve);
    steps_.idle();
  }

  // Before a sweep, for its time left: one repetition (a window of one message) of 1 MiB, then of
  // 16 times that while each took under an eighth of a trial, up to the largest size. The largest
  // sizes cost the most and come last; this is their rate, known from the start. The median of a
  // few more repetitions of the last size probed is steadier than one. It is still low where
  // messages rotate cache-cold and the kernel pays for its first copy of each page (a PVM guest
  // traps to its hypervisor): the transport's first pass over each part of the pool is slow (mpi
  // pingpong of 1 MiB here: about 1.8 ms a round trip for the first 256 repetitions, 0.4 ms after,
  // 0.24 ms in the sweep, whose smaller sizes make that pass), so the sweep takes those
  // repetitions again once its sizes reach a sixteenth of the probe's (kProbeAgainBelow): 4.8 ms
  // a 1 MiB transfer before the sweep, 0.25 ms at 64 KiB, where the time left had foretold the
  // sizes from 1 MiB up at 2 to 3.5 times their cost. No probe sends more than 16 x a
  // message that took an eighth of a trial, so a slow link never waits long. Corrupt data here is
  // left for the sweep to find at its size, with the sizes before it kept.
  Probe probe_large_sizes(const Group& group) {
    const std::uint64_t largest = record_.schedule.back();
    Probe probe;
    for (std::uint64_t bytes = std::min(largest, kFirstProbeBytes);; bytes = std::min(largest, bytes * 16)) {
      const double seconds = probe_repetition(group, bytes);
      if (!(seconds > 0)) return probe;
      const TransferShape shape = module_.shape(options_.pattern, bytes, 1);
      probe = {shape.bytes_per_transfer, seconds / shape.transfers_per_rep};
      probed_bytes_ = bytes;
      if (bytes == largest || seconds >= options_.calibration.trial_seconds / 8) break;
    }
    return probe_again(group, probe);
  }

  // The median of kProbeRepetitions repetitions of the probed size, or `probe` where one fails.
  Probe probe_again(const Group& group, Probe probe) {
    std::vector<double> repetitions;
    for (std::size_t i = 0; i < kProbeRepetitions; ++i) {
      const double seconds = probe_repetition(group, probed_bytes_);
      if (!(seconds > 0)) return probe;
      repetitions.push_back(seconds);
    }
    probe.seconds_per_transfer =
        summarize(repetitions).median / module_.shape(options_.pattern, probed_bytes_, 1).transfers_per_rep;
    return probe;
  }

  double probe_repetition(const Group& group, std::uint64_t bytes) {
    return steps_.timed_reps(group, bytes, options_.pattern, 1, 1, nullptr, "the probe", CollectiveSteps::Damage::ignored);
  }

  // The sizes beside each candidate break the group's curves show, measured again in turn
  // (break_checks.hpp): one trial of each a round, as the sweep measured it; the trials go onto the
  // curves beside the sweep's, for the report to tell the breaks that repeat from those the machine
  // made. Rank 0 chooses the sizes from its curves.
  void measure_breaks_again(const Group& group, std::size_t first_curve, const std::vector<HowMeasured>& swept) {
    const Team& team = steps_.team();
    std::vector<std::uint64_t> sizes = again_;  // rank 0's choice, at the sweep's last size
    sizes.resize(team.broadcast(sizes.size()));
    for (std::uint64_t& index : sizes) index = team.broadcast(index);
    std::vector<std::uint64_t> order;
    std::vector<double> mine;
    for (std::size_t round = 0; round < kRecheckRounds; ++round)
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        const std::uint64_t index = sizes[round % 2 == 0 ? k : sizes.size() - 1 - k];
        const std::uint64_t bytes = record_.schedule[index], reps = swept[index].reps, window = swept[index].window;
        // A warm-up of a quarter trial first, as each size had in the sweep: a trial right after
        // another size pays for the switch (caches, the transport's state) in its first repetitions.
        steps_.timed_reps(group, bytes, options_.pattern, std::max<std::uint64_t>(1, reps / 4), window, nullptr,
                          "the warm-up of a break's size measured again");
        TrialTiming timing;
        steps_.timed_reps(group, bytes, options_.pattern, reps, window, &timing, "a break's size measured again");
        order.push_back(bytes);
        mine.push_back(timing.seconds);
      }
    if (order.empty()) return;
    const Team::CollectiveWait wait =
        steps_.expect_collective(order.back(), options_.pattern, "gathering the sizes measured again");
    const std::vector<double> all = team.gather(mine, wait);
    steps_.on_root([&] {
      for (std::size_t i = 0; i < group.timers.size(); ++i) {
        Curve& curve = record_.curves[first_curve + i];
        const auto from = all.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(group.timers[i]) * mine.size());
        curve.recheck_bytes = order;
        curve.recheck_trial_seconds.assign(from, from + static_cast<std::ptrdiff_t>(mine.size()));
      }
    });
  }

  // Rank 0: the sizes beside the candidate breaks of this sweep's curves and beside its settings'
  // switches (break_checks.hpp), indices into the schedule.
  std::vector<std::uint64_t> sizes_to_measure_again_now(std::size_t first_curve) const {
    const std::vector<SetSwitch> settings = set_switches();
    std::set<std::size_t> chosen;
    for (std::size_t c = first_curve; c < record_.curves.size(); ++c) {
      const CurveData curve = curve_data(record_.curves[c], options_.headline);
      const std::vector<SettingSides> sides = setting_sides(curve.bytes, settings, curve.within_one_host());
      for (std::size_t index : sizes_to_measure_again(curve, sides)) chosen.insert(index);
    }
    return {chosen.begin(), chosen.end()};
  }

  // Rank 0, at the sweep's last size: again_, the sizes to measure again. Halfway through the first
  // sweep the same choice from the sizes so far is made and timed: the time left foretells those
  // sizes measured again, and the choice at the end from its time (the last line waits 0.2 s for
  // it after a GPU copy's 159 sizes, a fifth of the sweep's last tenth), at an eighth of its cost.
  void choose_sizes_again(std::size_t first_curve, std::size_t sizes) {
    const bool last = sizes == record_.schedule.size();
    if (!last && choice_timed_.sizes > 0) return;
    const double started = steps_.clock().now();
    std::vector<std::uint64_t> chosen = sizes_to_measure_again_now(first_curve);
    choice_timed_ = {steps_.clock().now() - started, sizes};
    (last ? again_ : chosen_halfway_) = std::move(chosen);
  }

  // Rank 0: what measuring the sizes of `indices` again will take, kRecheckRounds rounds of each
  // one swept so far.
  double seconds_to_measure_again(std::size_t first_curve, const std::vector<HowMeasured>& swept,
                                  const std::vector<std::uint64_t>& indices) const {
    double seconds = 0;
    for (std::uint64_t index : indices)
      if (index < swept.size())
        seconds += seconds_of_a_round_again(record_.curves[first_curve].sizes[index], swept[index].reps);
    return static_cast<double>(kRecheckRounds) * seconds;
  }

  // Where the path's settings say it switches, as the report will read them from the record: the
  // module's words for rank 0's placement facts.
  std::vector<SetSwitch> set_switches() const {
    if (record_.system.ranks.empty()) return {};
    const std::vector<std::pair<std::string, std::string>>& facts = record_.system.ranks.front().module_facts;
    return path_words(record_.module.name, PlacementFacts(facts.begin(), facts.end())).set_switches;
  }

  // Rank 0 keeps every timing rank's result of this size in its curve, then reports it.
  template <typename Report>
  void collect(const Group& group, const SizeResult& mine, std::size_t first_curve, Report report) {
    const std::size_t length = packed_length(options_.max_trials);
    const Team::CollectiveWait wait = steps_.expect_collective(mine.bytes, options_.pattern, "gathering the results");
    const std::vector<double> all = steps_.team().gather(pack(mine, options_.max_trials), wait);
    steps_.on_root([&] {
      for (std::size_t i = 0; i < group.timers.size(); ++i) {
        const auto rank = static_cast<std::size_t>(group.timers[i]);
        record_.curves[first_curve + i].sizes.push_back(unpack(all.data() + rank * length, options_.max_trials));
      }
      report();
    });
  }

  // What each timing rank's module says of the link it measured, onto its curve.
  void collect_link_peaks(const Group& group, std::size_t first_curve) {
    const LinkPeak mine = module_.link_peak();
    steps_.expect_collective(record_.schedule.back(), options_.pattern, "gathering the link peaks");
    const std::vector<double> rates = steps_.team().gather(std::vector<double>{mine.bytes_per_second});
    const std::vector<std::string> hows = steps_.team().gather(mine.how);
    steps_.on_root([&] {
      for (std::size_t i = 0; i < group.timers.size(); ++i) {
        const auto rank = static_cast<std::size_t>(group.timers[i]);
        record_.curves[first_curve + i].link_peak = {rates.at(rank), hows.at(rank)};
      }
    });
  }

  // This sweep's sizes left (seconds_left_in_sweep) and the choice of sizes to measure again at its
  // end, then every later sweep as long as this one.
  double estimate_seconds_left(std::size_t index, std::size_t sweeps_after, double sweep_started,
                               double between_sizes) const {
    const Curve& curve = record_.curves.back();
    const std::vector<std::uint64_t> remaining(record_.schedule.begin() + static_cast<std::ptrdiff_t>(index) + 1,
                                               record_.schedule.end());
    const SweepPlan plan{options_.calibration, options_.min_trials, options_.window, options_.window_given,
                         size_.shortest_round_trip(), [&](std::uint64_t bytes, std::uint64_t window) {
                           return module_.shape(options_.pattern, bytes, window);
                         },
                         probe_, between_sizes};
    double left = seconds_left_in_sweep(curve.sizes, remaining, plan);
    if (!remaining.empty()) left += seconds_to_choose_again(choice_timed_.seconds, choice_timed_.sizes, record_.schedule.size());
    const double spent = steps_.clock().now() - sweep_started;
    return left + static_cast<double>(sweeps_after) * (spent + left);
  }

  CollectiveSteps& steps_;
  Module& module_;
  RunRecord& record_;
  const RunOptions& options_;
  const std::vector<Reporter*>& reporters_;
  DriftingClock* drifting_;  // --test-clock-drift, or null
  SizeMeasurement size_;
  std::vector<Group> groups_;
  Probe probe_;  // of this sweep's large sizes
  std::uint64_t probed_bytes_ = 0;  // the probe's message size
  std::vector<std::uint64_t> again_;  // rank 0: the sizes of this sweep to measure again
  std::vector<std::uint64_t> chosen_halfway_;  // rank 0: those chosen halfway through the first sweep
  struct {
    double seconds = 0;
    std::size_t sizes = 0;  // 0: not timed yet
  } choice_timed_;  // rank 0: the last choice of sizes to measure again, and of how many sizes
  Progress progress_;
};

}  // namespace

void sweep_curves(CollectiveSteps& steps, Module& module, RunRecord& record, const std::vector<Reporter*>& reporters,
                  DriftingClock* drifting) {
  CurveSweep(steps, module, record, reporters, drifting).run();
}

}  // namespace npgpu
