#include "run/matrix_sweep.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "npgpu/sizes.hpp"
#include "run/nvtx.hpp"
#include "run/size_measurement.hpp"
#include "system/oversubscription.hpp"

namespace npgpu {
namespace {

constexpr int kMeasureAgainRounds = 2;
constexpr double kSteadySeconds = 1;

class MatrixSweep {
 public:
  // Collective: learns whether the ranks of a machine outnumber its cores.
  MatrixSweep(CollectiveSteps& steps, Module& module, RunRecord& record, const std::vector<Reporter*>& reporters)
      : steps_(steps), record_(record), options_(record.options), reporters_(reporters),
        size_(steps, module, record.options), groups_(measurement_groups(record, steps.team())),
        oversubscribed_(oversubscription(all_gather(steps.team().comm(), machine_and_cores()))) {}

  // Each size of --sizes in turn, through every step of the shift schedule, every rank timing its
  // sends to rank + shift; rank 0 gathers one cell per rank and step, never more. A whole matrix
  // before the next (the latency matrix first, at the defaults): right after a step's bulk
  // transfers a rate-limited link (a policer, tbf here) makes small messages wait for its tokens,
  // milliseconds on links the last step filled and microseconds on the others.
  void run() {
    steps_.on_root([&] {
      record_.matrix = empty_matrix(steps_.team().size(), record_.schedule, record_.patterns);
      if (!oversubscribed_.empty())
        record_.matrix.latency_cells = "one pair at a time, the other ranks waiting: " + oversubscribed_ +
                                       ", and ranks that share a core time the scheduler, not the link";
      classify();
    });
    progress_.total = groups_.size() * record_.schedule.size();
    const double started = steps_.clock().now();
    for (std::size_t index = 0; index < record_.schedule.size(); ++index) {
      for (const Group& group : groups_) {
        steps_.select_peers(group);
        size_.start_sweep();
        const std::uint64_t bytes = record_.schedule[index];
        const NvtxRange range(options_.nvtx, "npgpu shift " + std::to_string(group.shift) + " " + format_bytes(bytes));
        const double size_started = steps_.clock().now();
        SizeResult mine = measure_cells(group, bytes, record_.patterns[index]);
        mine.wall_seconds = steps_.clock().now() - size_started;
        ++progress_.done;
        collect_cells(group, mine, index, [&] {
          // The cells left at the pace so far, and the runs to follow as many again.
          const double per_cell = (steps_.clock().now() - started) / static_cast<double>(progress_.done);
          const std::size_t cells = progress_.total * (1 + options_.runs_to_follow);
          progress_.seconds_left = per_cell * static_cast<double>(cells - progress_.done);
          for (Reporter* reporter : reporters_) reporter->matrix_cells_done(record_, group.shift, index, progress_);
        });
      }
      for (int round = 0; round < kMeasureAgainRounds; ++round)
        if (!measure_doubtful_slow_cells_again(index, round)) break;
    }
    steps_.idle();
    steps_.on_root([&] { record_.matrix.flagged = flag_slow_links(record_.matrix, options_.headline); });
  }

 private:
  // A slow cell whose trials agree over a second or more is its link: a rate limit reads the same
  // trial after trial. One whose trials disagree, or that lasted less (a latency cell takes
  // milliseconds), may sit inside one burst of the machine's noise (8 B cells of 3 ms against
  // 10 us, seen here while compilers ran). Each such cell is measured again, as it was (its step's
  // pairs at once, or alone), keeping the measurement with the fastest trial: a slow link is slow
  // every time, noise seldom strikes one cell twice. False when none was doubtful.
  bool measure_doubtful_slow_cells_again(std::size_t index, int round) {
    const Team& team = steps_.team();
    std::vector<std::uint64_t> doubtful;
    steps_.on_root([&] {
      for (const FlaggedLink& link : flag_slow_links(record_.matrix, options_.headline)) {
        const std::size_t cell = static_cast<std::size_t>(link.from * team.size() + link.to);
        const SizeResult& result = record_.matrix.cells[index][cell];
        double seconds = 0;
        for (double trial : result.trial_seconds) seconds += trial;
        if (link.size_index == index && (!(result.precision <= options_.precision) || seconds < kSteadySeconds))
          doubtful.push_back(cell);
      }
      if (round == 0) record_.matrix.measured_again.push_back(0);
      record_.matrix.measured_again.back() += doubtful.size();
    });
    doubtful.resize(team.broadcast(doubtful.size()));
    for (std::uint64_t& cell : doubtful) cell = team.broadcast(cell);
    const std::uint64_t bytes = record_.schedule[index];
    const Pattern pattern = record_.patterns[index];
    for (const Group& group : groups_) {
      std::vector<int> timers;
      for (int timer : group.timers)
        if (std::count(doubtful.begin(), doubtful.end(), cell_of(timer, group))) timers.push_back(timer);
      if (timers.empty()) continue;
      steps_.select_peers(group);
      size_.start_sweep();
      const SizeResult mine = measure_cells(group, bytes, pattern, timers);
      collect_cells(group, mine, index, [] {}, [&](int rank) { return contains(timers, rank); });
    }
    return !doubtful.empty();
  }

  std::uint64_t cell_of(int rank, const Group& group) const {
    return static_cast<std::uint64_t>(rank * steps_.team().size() + group.peers[static_cast<std::size_t>(rank)].to);
  }

  // A step's cells at one size: its pairs at once, or, for a latency matrix where ranks outnumber
  // their cores, one pair at a time (a pingpong whose two ranks share a core waits for the
  // scheduler: 2-7 ms cells against 10 us seen here). Each rank returns its own cell.
  // Alone, only the cells of `timers` are measured (all of the step's where it is empty).
  SizeResult measure_cells(const Group& group, std::uint64_t bytes, Pattern pattern, const std::vector<int>& timers = {}) {
    if (pattern != Pattern::pingpong || oversubscribed_.empty()) return size_.measure(group, bytes, pattern);
    SizeResult mine;
    for (int timer : timers.empty() ? group.timers : timers) {
      const int peer = group.peers[static_cast<std::size_t>(timer)].to;
      SizeResult result = size_.measure({{timer, peer}, {timer}, group.peers, group.shift}, bytes, pattern);
      if (steps_.team().rank() == timer) mine = std::move(result);
    }
    return mine;
  }

  void classify() {
    PairMatrix& matrix = record_.matrix;
    for (const RankPlacement& rank : record_.system.ranks) {
      matrix.rank_host.push_back(rank.host);
      matrix.rank_gpu.push_back(gpu_of(rank));
    }
    matrix.flag_below = options_.flag_below;
    classify_cells(matrix);
  }

  // "GPU 3 (0000:9a:00.0)" from the module's facts, or "" where the rank's messages were host memory.
  static std::string gpu_of(const RankPlacement& rank) {
    std::string index, bus;
    for (const auto& [name, value] : rank.module_facts) {
      if (name == "gpu") index = value;
      if (name == "gpu_pci_bus_id") bus = value;
    }
    return index.empty() ? "" : "GPU " + index + " (" + bus + ")";
  }

  // Each timer's cell onto the matrix; a cell measured again (again(rank)) is kept only where its
  // fastest trial beats the first measurement's: noise only adds time, so the measurement with the
  // fastest trial saw the least of it (by medians, an 8 B cell measured three times under a load
  // of 5 kept trials of 13-34 us, and was flagged, though one of its trials had read 10 us).
  template <typename Report>
  void collect_cells(const Group& group, const SizeResult& mine, std::size_t index, Report report,
                     const std::function<bool(int)>& again = {}) {
    const std::size_t length = packed_length(options_.max_trials);
    const Team::CollectiveWait wait =
        steps_.expect_collective(record_.schedule[index], record_.patterns[index], "gathering the results");
    const std::vector<double> all = steps_.team().gather(pack(mine, options_.max_trials), wait);
    steps_.on_root([&] {
      for (int rank : group.timers) {
        SizeResult& cell = record_.matrix.cells[index][cell_of(rank, group)];
        SizeResult measured = unpack(all.data() + static_cast<std::size_t>(rank) * length, options_.max_trials);
        if (!again) cell = std::move(measured);
        else if (again(rank) && measured.time.min < cell.time.min)
          cell = std::move(measured);
      }
      report();
    });
  }

  CollectiveSteps& steps_;
  RunRecord& record_;
  const RunOptions& options_;
  const std::vector<Reporter*>& reporters_;
  SizeMeasurement size_;
  std::vector<Group> groups_;
  std::string oversubscribed_;  // "8 ranks on 2 cores of one machine", or ""
  Progress progress_;
};

}  // namespace

void measure_matrix(CollectiveSteps& steps, Module& module, RunRecord& record, const std::vector<Reporter*>& reporters) {
  MatrixSweep(steps, module, record, reporters).run();
}

}  // namespace npgpu
