// The experiment. Every rank runs this same code; rank 0 decides nothing alone: the collective
// max/any steps between trials make each decision the same on every rank, so no rank waits forever.
#include "npgpu/driver.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "npgpu/nvtx.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

// The ranks that measure at the same time, and which of them time.
struct Group {
  std::vector<int> members;  // ranks that move bytes
  std::vector<int> timers;   // ranks whose timings are kept (a curve each)
};

std::vector<Group> measurement_groups(const RunRecord& record, const Team& team) {
  if (record.module.layout == Layout::pair) return {{{0, 1}, {0}}};
  std::vector<int> all(static_cast<std::size_t>(team.size()));
  for (int r = 0; r < team.size(); ++r) all[static_cast<std::size_t>(r)] = r;
  if (record.options.concurrency == Concurrency::together) return {{all, all}};
  std::vector<Group> groups;
  for (int r : all) groups.push_back({{r}, {r}});
  return groups;
}

bool contains(const std::vector<int>& ranks, int rank) {
  return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
}

class Sweep {
 public:
  Sweep(Module& module, RunRecord& record, const Team& team, const Clock& clock, Reporter& reporter)
      : module_(module), record_(record), options_(record.options), team_(team), clock_(clock),
        reporter_(reporter), groups_(measurement_groups(record, team)) {}

  void run() {
    const std::vector<std::string> variants = module_.variants();
    const std::size_t sweeps = groups_.size() * variants.size();
    progress_.total = sweeps * record_.schedule.size();
    std::size_t sweep = 0;
    for (const Group& group : groups_)
      for (std::size_t v = 0; v < variants.size(); ++v, ++sweep) {
        module_.select_variant(v);
        sweep_sizes(group, variants[v], sweeps - sweep - 1);
      }
  }

 private:
  // One curve per timing rank of the group, over the whole schedule.
  void sweep_sizes(const Group& group, const std::string& variant, std::size_t sweeps_after) {
    const std::size_t first_curve = record_.curves.size();
    if (team_.is_root())
      for (int rank : group.timers)
        record_.curves.push_back({rank, record_.system.ranks.at(static_cast<std::size_t>(rank)).host, variant, {}, {}});
    previous_ = {};
    best_rate_ = 0;
    for (std::size_t index = 0; index < record_.schedule.size(); ++index) {
      const std::uint64_t bytes = record_.schedule[index];
      const NvtxRange range(options_.nvtx, "npgpu " + (variant.empty() ? "" : variant + " ") + format_bytes(bytes));
      const double started = clock_.now();
      SizeResult mine = measure(group, bytes);
      mine.wall_seconds = clock_.now() - started;
      collect(group, mine, first_curve);
      ++progress_.done;
      if (team_.is_root()) {
        progress_.seconds_left = estimate_seconds_left(index, sweeps_after);
        reporter_.size_done(record_, first_curve, index, progress_);
      }
    }
    collect_link_peaks(group, first_curve);
  }

  struct Previous {
    std::uint64_t bytes = 0;
    double seconds_per_rep = 0;
  };

  // One timed call on every member; the slowest timer's seconds per repetition on every rank.
  double timed_reps(const Group& group, std::uint64_t bytes, std::uint64_t reps, TrialTiming* kept) {
    team_.barrier();
    TrialTiming timing;
    if (contains(group.members, team_.rank()))
      timing = module_.run({options_.pattern, bytes, reps, clock_});
    const bool timer = contains(group.timers, team_.rank());
    if (kept != nullptr && timer) *kept = timing;
    return team_.max(timer ? timing.seconds / static_cast<double>(reps) : 0.0);
  }

  SizeResult measure(const Group& group, std::uint64_t bytes) {
    const Calibration& calibration = options_.calibration;
    // Warm-up: first-touch costs and lazy connections land here, never in a trial. It also
    // measures this size's time per repetition, from which the trials' repetitions follow.
    std::uint64_t reps = warmup_reps(calibration, previous_.seconds_per_rep, previous_.bytes, bytes);
    double seconds_per_rep = timed_reps(group, bytes, reps, nullptr);
    while (seconds_per_rep * static_cast<double>(reps) < calibration.trial_seconds / 8 && reps < calibration.max_reps) {
      reps = std::min(calibration.max_reps, reps * 4);
      seconds_per_rep = timed_reps(group, bytes, reps, nullptr);
    }
    previous_ = {bytes, seconds_per_rep};
    best_rate_ = std::max(best_rate_, static_cast<double>(bytes) / seconds_per_rep);

    SizeResult result;
    result.bytes = bytes;
    result.reps = reps_to_fill(calibration, seconds_per_rep);
    result.shape = module_.shape(options_.pattern, bytes, options_.window);
    const bool timer = contains(group.timers, team_.rank());
    for (std::uint64_t trial = 0; trial < options_.max_trials; ++trial) {
      const NvtxRange range(options_.nvtx, "trial " + std::to_string(trial));
      TrialTiming timing;
      timed_reps(group, bytes, result.reps, &timing);
      if (timer) {
        result.trial_seconds.push_back(timing.seconds);
        if (!std::isnan(timing.alt_seconds)) result.trial_alt_seconds.push_back(timing.alt_seconds);
        summarize_trials(result);
      }
      if (options_.check_data && contains(group.members, team_.rank())) module_.check(bytes, bytes * 1000 + trial);
      const bool enough = trial + 1 >= options_.min_trials;
      if (!team_.any(!enough || (timer && !(result.precision <= options_.precision)))) break;
    }
    return result;
  }

  // Rank 0 keeps every timing rank's result of this size in its curve.
  void collect(const Group& group, const SizeResult& mine, std::size_t first_curve) {
    const std::size_t length = packed_length(options_.max_trials);
    const std::vector<double> all = team_.gather(pack(mine, options_.max_trials));
    if (!team_.is_root()) return;
    for (std::size_t i = 0; i < group.timers.size(); ++i) {
      const auto rank = static_cast<std::size_t>(group.timers[i]);
      record_.curves[first_curve + i].sizes.push_back(unpack(all.data() + rank * length, options_.max_trials));
    }
  }

  // What each timing rank's module says of the link it measured, onto its curve.
  void collect_link_peaks(const Group& group, std::size_t first_curve) {
    const LinkPeak mine = module_.link_peak();
    const std::vector<std::string> all = team_.gather(std::to_string(mine.bytes_per_second) + "\t" + mine.how);
    if (!team_.is_root()) return;
    for (std::size_t i = 0; i < group.timers.size(); ++i) {
      const std::string& text = all.at(static_cast<std::size_t>(group.timers[i]));
      const auto tab = text.find('\t');
      record_.curves[first_curve + i].link_peak = {std::stod(text.substr(0, tab)), text.substr(tab + 1)};
    }
  }

  // Sizes left cost what the sizes so far cost on average, except where one repetition outlasts a
  // trial; a repetition's time is predicted from the best rate seen so far, floored at 1 GB/s so
  // that the first, latency-bound sizes do not predict hours for the last ones.
  double estimate_seconds_left(std::size_t index, std::size_t sweeps_after) const {
    const Curve& curve = record_.curves.back();
    double spent = 0, trials = 0;
    for (const SizeResult& size : curve.sizes) {
      spent += size.wall_seconds;
      trials += static_cast<double>(size.trial_seconds.size());
    }
    const auto measured = static_cast<double>(curve.sizes.size());
    const double per_size = spent / measured;
    const double runs_per_size = trials / measured + 1;  // the warm-up runs about one more
    const double rate = std::max(best_rate_, 1e9);
    double left = 0;
    for (std::size_t i = index + 1; i < record_.schedule.size(); ++i) {
      const double rep = static_cast<double>(record_.schedule[i]) / rate;
      left += std::max(per_size, rep * static_cast<double>(options_.calibration.min_reps) * runs_per_size);
    }
    return left + static_cast<double>(sweeps_after) * (spent + left);
  }

  Module& module_;
  RunRecord& record_;
  const RunOptions& options_;
  const Team& team_;
  const Clock& clock_;
  Reporter& reporter_;
  std::vector<Group> groups_;
  Previous previous_;
  double best_rate_ = 0;  // bytes per second of one repetition, the best so far
  Progress progress_;
};

}  // namespace

void run_sweep(Module& module, RunRecord& record, const Team& team, const Clock& clock, Reporter& reporter) {
  if (team.is_root()) reporter.begin(record);
  Sweep(module, record, team, clock, reporter).run();
}

}  // namespace npgpu
