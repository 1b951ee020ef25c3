// The experiment. Every rank runs this same code; rank 0 decides nothing alone: the collective
// max/any steps between trials make each decision the same on every rank, so no rank waits forever.
#include "run/driver.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <limits>
#include <optional>
#include <string>

#include "npgpu/errors.hpp"
#include "npgpu/fault.hpp"
#include "run/nvtx.hpp"
#include "run/roll_call.hpp"
#include "npgpu/sizes.hpp"
#include "run/time_left.hpp"
#include "results/run_data.hpp"
#include "report/break_checks.hpp"
#include "system/oversubscription.hpp"

namespace npgpu {
namespace {

// The ranks that measure at the same time, which of them time, and (pair modules) whom each talks to.
struct Group {
  std::vector<int> members;  // ranks that move bytes
  std::vector<int> timers;   // ranks whose timings are kept (a curve each, or a matrix cell each)
  std::vector<Peers> peers;  // pair modules: by rank; empty for per-rank modules
  int shift = 0;             // --pairs all: the step of the shift schedule
};

std::vector<Group> measurement_groups(const RunRecord& record, const Team& team) {
  std::vector<Group> groups;
  if (record.module.layout == Layout::pair) {
    for (PairStep& step : pairing_steps(record.pairing)) {
      Group group{{}, std::move(step.timers), std::move(step.peers), step.shift};
      for (int r = 0; r < team.size(); ++r)
        if (!group.peers[static_cast<std::size_t>(r)].idle()) group.members.push_back(r);
      groups.push_back(std::move(group));
    }
    return groups;
  }
  std::vector<int> all(static_cast<std::size_t>(team.size()));
  for (int r = 0; r < team.size(); ++r) all[static_cast<std::size_t>(r)] = r;
  if (record.options.concurrency == Concurrency::together) return {{all, all, {}, 0}};
  for (int r : all) groups.push_back({{r}, {r}, {}, 0});
  return groups;
}

bool contains(const std::vector<int>& ranks, int rank) {
  return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
}

constexpr double kDamaged = std::numeric_limits<double>::infinity();  // a time no trial takes
constexpr std::uint64_t kFirstProbeBytes = 1 << 20;
constexpr std::uint64_t kWindowProbeGrowth = 4;
constexpr std::uint64_t kRoundTripBytes = 8;
constexpr int kMaxResizes = 2;
constexpr int kMeasureAgainRounds = 2;
constexpr double kSteadySeconds = 1;
constexpr std::uint64_t kResizeFactor = 16;    // a first trial this many times too short is sized again
constexpr std::uint64_t kLongTrialFactor = 4;  // and one this many times too long
constexpr std::size_t kProbeRepetitions = 5;
constexpr double kBaseWaitSeconds = 30;
constexpr double kWaitTrials = 10;

class Sweep {
 public:
  explicit Sweep(const SweepParts& parts)
      : module_(parts.module), record_(parts.record), options_(parts.record.options), team_(parts.team),
        drifting_(options_.drift ? std::optional<DriftingClock>(std::in_place, parts.clock, options_.drift->factor)
                                 : std::nullopt),
        clock_(drifting_ ? *drifting_ : parts.clock), reporters_(parts.reporters), guard_(parts.guard),
        record_lock_(parts.record_lock),
        groups_(measurement_groups(parts.record, parts.team)), hosts_(all_gather(parts.team.comm(), this_host())),
        oversubscribed_(oversubscription(all_gather(parts.team.comm(), machine_and_cores()))) {
    // With two ranks a step can only wait for the other one; with more, a roll call names whom.
    if (team_.size() > 2) roll_call_.emplace(team_);
  }

  void run() {
    if (record_.pairing.mode == PairingMode::all && record_.module.layout == Layout::pair) {
      measure_matrix();
      return;
    }
    const std::vector<std::string> variants = module_.variants();
    const std::size_t sweeps = groups_.size() * variants.size();
    progress_.total = sweeps * record_.schedule.size();
    std::size_t sweep = 0;
    for (const Group& group : groups_)
      for (std::size_t v = 0; v < variants.size(); ++v, ++sweep) {
        module_.select_variant(v);
        select_peers(group);
        sweep_sizes(group, variants[v], sweeps - sweep - 1);
      }
  }

 private:
  void select_peers(const Group& group) {
    if (group.peers.empty()) return;
    guard_.expect(wait_bound(0), peers_text(group) + " choosing the step's peers");
    module_.select_peers(group.peers[static_cast<std::size_t>(team_.rank())]);
  }

  // --timeout, or a bound that grows with the time a trial at this size is expected to take:
  // the trial time, or one repetition predicted from the last size when that is longer.
  double wait_bound(std::uint64_t bytes) const {
    if (options_.timeout) return *options_.timeout;
    double trial = options_.calibration.trial_seconds;
    if (previous_.bytes > 0)
      trial = std::max(trial, previous_.seconds_per_rep * static_cast<double>(bytes) / static_cast<double>(previous_.bytes));
    return kBaseWaitSeconds + kWaitTrials * trial;
  }

  // Whom this rank waits for in a step: its peers, by rank and host, or every other rank.
  std::string peers_text(const Group& group) const {
    std::string text;
    if (!group.peers.empty()) {
      const Peers& mine = group.peers[static_cast<std::size_t>(team_.rank())];
      for (int peer : {mine.to, mine.from})
        if (peer >= 0 && text.find("rank " + std::to_string(peer) + " ") == std::string::npos)
          text += (text.empty() ? "" : " and ") + rank_text(peer);
    }
    return text.empty() ? others_text() : text;
  }

  // "rank 3 (host)": how every wait names a rank.
  std::string rank_text(int rank) const { return "rank " + std::to_string(rank) + " (" + host_of(rank) + ")"; }
  std::string others_text() const { return team_.size() == 2 ? rank_text(1 - team_.rank()) : "the other ranks"; }

  std::string during(std::uint64_t bytes, Pattern pattern) const {
    return ": module " + options_.module + ", pattern " + pattern_name(pattern) + ", size " + format_bytes(bytes);
  }

  // Bounds the collective step that follows, and (with a roll call) says how to wait for it: a
  // rank idle while the others measure waits sleeping.
  Team::CollectiveWait expect_collective(std::uint64_t bytes, Pattern pattern, const char* step,
                                         RollCall::Polling polling = RollCall::Polling::busy) {
    const std::string where = std::string(" at ") + step + during(bytes, pattern);
    const double bound = wait_bound(bytes);
    guard_.expect(bound, others_text() + where);
    if (!roll_call_) return {};
    return [this, where, bound, polling](MPI_Request& request) {
      roll_call_->wait(request, bound, polling, [&](const std::vector<int>& missing) {
        guard_.retell((missing.empty() ? others_text() : ranks_text(missing)) + where);
      });
    };
  }

  std::string ranks_text(const std::vector<int>& ranks) const {
    std::string text;
    for (int rank : ranks) text += (text.empty() ? "" : ", ") + rank_text(rank);
    return text;
  }

  static std::string this_host() {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    return std::string(name, static_cast<std::size_t>(length));
  }
  const std::string& host_of(int rank) const { return hosts_.at(static_cast<std::size_t>(rank)); }

  // One curve per timing rank of the group, over the whole schedule.
  void sweep_sizes(const Group& group, const std::string& variant, std::size_t sweeps_after) {
    const std::size_t first_curve = record_.curves.size();
    on_root([&] {
      for (int rank : group.timers) {
        const int peer = group.peers.empty() ? -1 : group.peers[static_cast<std::size_t>(rank)].to;
        record_.curves.push_back({rank, host_of(rank), variant, {}, {}, peer, peer < 0 ? "" : host_of(peer), {}, {}});
      }
    });
    previous_ = {};
    shortest_round_trip_ = kDamaged;
    probe_ = probe_large_sizes(group);
    std::vector<HowMeasured> swept;
    for (std::size_t index = 0; index < record_.schedule.size(); ++index) {
      const std::uint64_t bytes = record_.schedule[index];
      const NvtxRange range(options_.nvtx, "npgpu " + (variant.empty() ? "" : variant + " ") + format_bytes(bytes));
      if (drifting_ && bytes >= options_.drift->from_bytes) drifting_->start();
      const double started = clock_.now();
      const std::uint64_t window = choose_window(group, bytes, options_.pattern);
      SizeResult mine = measure(group, bytes, options_.pattern, window);
      mine.wall_seconds = clock_.now() - started;
      swept.push_back({mine.reps, window});
      ++progress_.done;
      collect(group, mine, first_curve, [&] {
        progress_.seconds_left = estimate_seconds_left(index, sweeps_after);
        for (Reporter* reporter : reporters_) reporter->size_done(record_, first_curve, index, progress_);
      });
    }
    measure_breaks_again(group, first_curve, swept);
    collect_link_peaks(group, first_curve);
    guard_.idle();
  }

  // How a size was measured in the sweep, the same on every rank: what measuring it again repeats.
  struct HowMeasured {
    std::uint64_t reps = 0, window = 1;
  };

  // The sizes beside each candidate break the group's curves show, measured again in turn
  // (break_checks.hpp): one trial of each a round, as the sweep measured it; the trials go onto the
  // curves beside the sweep's, for the report to tell the breaks that repeat from those the machine
  // made. Rank 0 chooses the sizes from its curves.
  void measure_breaks_again(const Group& group, std::size_t first_curve, const std::vector<HowMeasured>& swept) {
    std::vector<std::uint64_t> sizes;
    on_root([&] {
      std::set<std::size_t> chosen;
      for (std::size_t c = first_curve; c < record_.curves.size(); ++c)
        for (std::size_t index : sizes_to_measure_again(curve_data(record_.curves[c], options_.headline))) chosen.insert(index);
      sizes.assign(chosen.begin(), chosen.end());
    });
    sizes.resize(team_.broadcast(sizes.size()));
    for (std::uint64_t& index : sizes) index = team_.broadcast(index);
    std::vector<std::uint64_t> order;
    std::vector<double> mine;
    for (std::size_t round = 0; round < kRecheckRounds; ++round)
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        const std::uint64_t index = sizes[round % 2 == 0 ? k : sizes.size() - 1 - k];
        const std::uint64_t bytes = record_.schedule[index], reps = swept[index].reps, window = swept[index].window;
        // A warm-up of a quarter trial first, as each size had in the sweep: a trial right after
        // another size pays for the switch (caches, the transport's state) in its first repetitions.
        timed_reps(group, bytes, options_.pattern, std::max<std::uint64_t>(1, reps / 4), window, nullptr,
                   "the warm-up of a break's size measured again");
        TrialTiming timing;
        timed_reps(group, bytes, options_.pattern, reps, window, &timing, "a break's size measured again");
        order.push_back(bytes);
        mine.push_back(timing.seconds);
      }
    if (order.empty()) return;
    const Team::CollectiveWait wait = expect_collective(order.back(), options_.pattern, "gathering the sizes measured again");
    const std::vector<double> all = team_.gather(mine, wait);
    on_root([&] {
      for (std::size_t i = 0; i < group.timers.size(); ++i) {
        Curve& curve = record_.curves[first_curve + i];
        const auto from = all.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(group.timers[i]) * mine.size());
        curve.recheck_bytes = order;
        curve.recheck_trial_seconds.assign(from, from + static_cast<std::ptrdiff_t>(mine.size()));
      }
    });
  }

  // Rank 0 changes the record only here, holding the lock, so the guard can save it at any moment.
  template <typename Change>
  void on_root(Change change) {
    if (!team_.is_root()) return;
    const std::lock_guard<std::mutex> hold(record_lock_);
    change();
  }

  // --pairs all: each size of --sizes in turn, through every step of the shift schedule, every rank
  // timing its sends to rank + shift; rank 0 gathers one cell per rank and step, never more. A
  // whole matrix before the next (the latency matrix first, at the defaults): right after a step's bulk transfers a rate-limited link
  // (a policer, tbf here) makes small messages wait for its tokens, milliseconds on links the
  // last step filled and microseconds on the others.
  void measure_matrix() {
    on_root([&] {
      record_.matrix = empty_matrix(team_.size(), record_.schedule, record_.patterns);
      if (!oversubscribed_.empty())
        record_.matrix.latency_cells = "one pair at a time, the other ranks waiting: " + oversubscribed_ +
                                       ", and ranks that share a core time the scheduler, not the link";
      classify();
    });
    progress_.total = groups_.size() * record_.schedule.size();
    const double started = clock_.now();
    for (std::size_t index = 0; index < record_.schedule.size(); ++index) {
      for (const Group& group : groups_) {
        select_peers(group);
        previous_ = {};
        shortest_round_trip_ = kDamaged;
        const std::uint64_t bytes = record_.schedule[index];
        const NvtxRange range(options_.nvtx, "npgpu shift " + std::to_string(group.shift) + " " + format_bytes(bytes));
        const double size_started = clock_.now();
        SizeResult mine = measure_cells(group, bytes, record_.patterns[index]);
        mine.wall_seconds = clock_.now() - size_started;
        ++progress_.done;
        collect_cells(group, mine, index, [&] {
          const double per_cell = (clock_.now() - started) / static_cast<double>(progress_.done);
          progress_.seconds_left = per_cell * static_cast<double>(progress_.total - progress_.done);
          for (Reporter* reporter : reporters_) reporter->matrix_cells_done(record_, group.shift, index, progress_);
        });
      }
      for (int round = 0; round < kMeasureAgainRounds; ++round)
        if (!measure_doubtful_slow_cells_again(index, round)) break;
    }
    guard_.idle();
    on_root([&] { record_.matrix.flagged = flag_slow_links(record_.matrix, options_.headline); });
  }

  // A slow cell whose trials agree over a second or more is its link: a rate limit reads the same
  // trial after trial. One whose trials disagree, or that lasted less (a latency cell takes
  // milliseconds), may sit inside one burst of the machine's noise (8 B cells of 3 ms against
  // 10 us, seen here while compilers ran). Each such cell is measured again, as it was (its step's
  // pairs at once, or alone), keeping the measurement with the fastest trial: a slow link is slow
  // every time, noise seldom strikes one cell twice. False when none was doubtful.
  bool measure_doubtful_slow_cells_again(std::size_t index, int round) {
    std::vector<std::uint64_t> doubtful;
    on_root([&] {
      for (const FlaggedLink& link : flag_slow_links(record_.matrix, options_.headline)) {
        const std::size_t cell = static_cast<std::size_t>(link.from * team_.size() + link.to);
        const SizeResult& result = record_.matrix.cells[index][cell];
        double seconds = 0;
        for (double trial : result.trial_seconds) seconds += trial;
        if (link.size_index == index && (!(result.precision <= options_.precision) || seconds < kSteadySeconds))
          doubtful.push_back(cell);
      }
      if (round == 0) record_.matrix.measured_again.push_back(0);
      record_.matrix.measured_again.back() += doubtful.size();
    });
    doubtful.resize(team_.broadcast(doubtful.size()));
    for (std::uint64_t& cell : doubtful) cell = team_.broadcast(cell);
    const std::uint64_t bytes = record_.schedule[index];
    const Pattern pattern = record_.patterns[index];
    for (const Group& group : groups_) {
      std::vector<int> timers;
      for (int timer : group.timers)
        if (std::count(doubtful.begin(), doubtful.end(), cell_of(timer, group))) timers.push_back(timer);
      if (timers.empty()) continue;
      select_peers(group);
      previous_ = {};
      shortest_round_trip_ = kDamaged;
      const SizeResult mine = measure_cells(group, bytes, pattern, timers);
      collect_cells(group, mine, index, [] {}, [&](int rank) { return contains(timers, rank); });
    }
    return !doubtful.empty();
  }

  std::uint64_t cell_of(int rank, const Group& group) const {
    return static_cast<std::uint64_t>(rank * team_.size() + group.peers[static_cast<std::size_t>(rank)].to);
  }

  // A step's cells at one size: its pairs at once, or, for a latency matrix where ranks outnumber
  // their cores, one pair at a time (a pingpong whose two ranks share a core waits for the
  // scheduler: 2-7 ms cells against 10 us seen here). Each rank returns its own cell.
  // Alone, only the cells of `timers` are measured (all of the step's where it is empty).
  SizeResult measure_cells(const Group& group, std::uint64_t bytes, Pattern pattern, const std::vector<int>& timers = {}) {
    if (pattern != Pattern::pingpong || oversubscribed_.empty()) return measure(group, bytes, pattern);
    SizeResult mine;
    for (int timer : timers.empty() ? group.timers : timers) {
      const int peer = group.peers[static_cast<std::size_t>(timer)].to;
      SizeResult result = measure({{timer, peer}, {timer}, group.peers, group.shift}, bytes, pattern);
      if (team_.rank() == timer) mine = std::move(result);
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

  template <typename Report>
  // Each timer's cell onto the matrix; a cell measured again (again(rank)) is kept only where its
  // fastest trial beats the first measurement's: noise only adds time, so the measurement with the
  // fastest trial saw the least of it (by medians, an 8 B cell measured three times under a load
  // of 5 kept trials of 13-34 us, and was flagged, though one of its trials had read 10 us).
  void collect_cells(const Group& group, const SizeResult& mine, std::size_t index, Report report,
                     const std::function<bool(int)>& again = {}) {
    const std::size_t length = packed_length(options_.max_trials);
    const Team::CollectiveWait wait = expect_collective(record_.schedule[index], record_.patterns[index], "gathering the results");
    const std::vector<double> all = team_.gather(pack(mine, options_.max_trials), wait);
    on_root([&] {
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

  // The size measured last in this sweep (or matrix step): what the next one is predicted from.
  struct Previous {
    std::uint64_t bytes = 0;
    double seconds_per_rep = 0;
    double seconds_per_transfer = 0;
  };

  // Before a sweep, for its time left: one repetition (a window of one message) of 1 MiB, then of
  // 16 times that while each took under an eighth of a trial, up to the largest size. The largest
  // sizes cost the most and come last; this is their rate, known from the start. The median of a
  // few more repetitions of the last size probed is steadier than one. It is still low where
  // messages rotate cache-cold: the transport's first pass over each part of the pool is slow (mpi
  // pingpong of 1 MiB here: about 1.8 ms a round trip for the first 256 repetitions, 0.4 ms after,
  // 0.24 ms in the sweep, whose smaller sizes make that pass). No probe sends more than 16 x a
  // message that took an eighth of a trial, so a slow link never waits long. Corrupt data here is
  // left for the sweep to find at its size, with the sizes before it kept.
  Probe probe_large_sizes(const Group& group) {
    const std::uint64_t largest = record_.schedule.back();
    const auto one_repetition = [&](std::uint64_t bytes) {
      return timed_reps(group, bytes, options_.pattern, 1, 1, nullptr, "the probe", Damage::ignored);
    };
    Probe probe;
    TransferShape shape{};
    std::uint64_t probed = 0;
    for (std::uint64_t bytes = std::min(largest, kFirstProbeBytes);; bytes = std::min(largest, bytes * 16)) {
      shape = module_.shape(options_.pattern, bytes, 1);
      const double seconds = one_repetition(bytes);
      if (!(seconds > 0)) return probe;
      probe = {shape.bytes_per_transfer, seconds / shape.transfers_per_rep};
      probed = bytes;
      if (bytes == largest || seconds >= options_.calibration.trial_seconds / 8) break;
    }
    std::vector<double> repetitions;
    for (std::size_t i = 0; i < kProbeRepetitions; ++i) {
      const double seconds = one_repetition(probed);
      if (!(seconds > 0)) return probe;
      repetitions.push_back(seconds);
    }
    probe.seconds_per_transfer = summarize(repetitions).median / shape.transfers_per_rep;
    return probe;
  }

  // One timed call on every member; the slowest timer's seconds per repetition on every rank.
  // A member that found corrupt data says so through the same collective step (an infinite time),
  // so the run costs nothing more until data is corrupt, and then fails on every rank together.
  enum class Damage { fails_the_run, ignored };
  double timed_reps(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t reps, std::uint64_t window,
                    TrialTiming* kept, const std::string& step, Damage damaged = Damage::fails_the_run) {
    team_.barrier(expect_collective(bytes, pattern, "the barrier before a trial"));
    TrialTiming timing;
    std::optional<std::string> damage;
    const bool member = contains(group.members, team_.rank());
    if (member) {
      guard_.expect(wait_bound(bytes), peers_text(group) + " in a trial" + during(bytes, pattern));
      damage = damage_from([&] { timing = module_.run({pattern, bytes, reps, window, clock_}); });
      if (damaged == Damage::ignored) damage.reset();
    }
    const bool timer = contains(group.timers, team_.rank());
    if (kept != nullptr && timer) *kept = timing;
    const double mine = damage ? kDamaged : timer ? timing.seconds / static_cast<double>(reps) : 0.0;
    const RollCall::Polling polling = member ? RollCall::Polling::busy : RollCall::Polling::sleeping;
    const double slowest = team_.max(mine, expect_collective(bytes, pattern, "the step after a trial", polling));
    if (slowest == kDamaged) fail_together(damage, step, bytes, pattern);
    return slowest;
  }

  // --check: every byte of one message, outside the timing, then a collective step on what it found.
  void check_data(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t trial) {
    std::optional<std::string> damage;
    if (contains(group.members, team_.rank())) {
      guard_.expect(wait_bound(bytes), peers_text(group) + " in the data check" + during(bytes, pattern));
      damage = damage_from([&] { module_.check(bytes, bytes * 1000 + trial); });
    }
    if (team_.any(damage.has_value(), expect_collective(bytes, pattern, "the step after the data check")))
      fail_together(damage, "the check after trial " + std::to_string(trial + 1), bytes, pattern);
  }

  template <typename Transfer>
  static std::optional<std::string> damage_from(Transfer transfer) {
    try {
      transfer();
    } catch (const DataError& error) {
      return error.what();
    }
    return std::nullopt;
  }

  // Every rank stops with the first rank's words for what it found; rank 0 saves the run as failed.
  [[noreturn]] void fail_together(const std::optional<std::string>& damage, const std::string& step, std::uint64_t bytes,
                                  Pattern pattern) {
    const std::optional<std::string> mine =
        damage ? std::optional<std::string>(*damage + " in " + step + during(bytes, pattern)) : std::nullopt;
    throw FailedOnEveryRank(team_.first_error(mine).value_or("corrupt data"));
  }

  // Messages in this size's window: --window, or as many as last half a trial or 50 round trips
  // at the previous size's time per message (window_to_fill). The first size, or one far above the
  // last (8 B then 1 MiB in a matrix), times a window of one message of its own first, as part of
  // its warm-up. The round trip is the shortest this sweep has timed: a pingpong, or a window of
  // one small message and its ack, timed twice when none was (the first may carry a lazy connection).
  std::uint64_t choose_window(const Group& group, std::uint64_t bytes, Pattern pattern) {
    const bool windowed = module_.shape(pattern, bytes, 2).transfers_per_rep != module_.shape(pattern, bytes, 1).transfers_per_rep;
    if (options_.window_given || !windowed) return options_.window;
    const auto one_message = [&](std::uint64_t size) {
      return timed_reps(group, size, pattern, 1, 1, nullptr, "the warm-up");
    };
    if (shortest_round_trip_ == kDamaged) {
      const std::uint64_t small = std::min(bytes, kRoundTripBytes);
      const double first = one_message(small);
      shortest_round_trip_ = std::min(first, one_message(small));
    }
    double per_transfer = previous_.seconds_per_transfer;
    if (previous_.bytes == 0 || bytes > kWindowProbeGrowth * previous_.bytes)
      per_transfer = one_message(bytes) / module_.shape(pattern, bytes, 1).transfers_per_rep;
    return window_to_fill(options_.calibration, options_.window, per_transfer, shortest_round_trip_, bytes);
  }

  SizeResult measure(const Group& group, std::uint64_t bytes, Pattern pattern) {
    return measure(group, bytes, pattern, choose_window(group, bytes, pattern));
  }

  SizeResult measure(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t window) {
    const Calibration& calibration = options_.calibration;
    SizeResult result;
    result.bytes = bytes;
    result.shape = module_.shape(pattern, bytes, window);
    // Warm-up: first-touch costs and lazy connections land here, never in a trial. It also
    // measures this size's time per repetition, from which the trials' repetitions follow.
    std::uint64_t reps = warmup_reps(calibration, previous_.seconds_per_transfer * result.shape.transfers_per_rep,
                                     previous_.bytes, bytes);
    double seconds_per_rep = timed_reps(group, bytes, pattern, reps, window, nullptr, "the warm-up");
    while (seconds_per_rep * static_cast<double>(reps) < calibration.trial_seconds / 8 && reps < calibration.max_reps) {
      reps = std::min(calibration.max_reps, reps * 4);
      seconds_per_rep = timed_reps(group, bytes, pattern, reps, window, nullptr, "the warm-up");
    }
    previous_ = {bytes, seconds_per_rep, seconds_per_rep / result.shape.transfers_per_rep};
    if (pattern == Pattern::pingpong) shortest_round_trip_ = std::min(shortest_round_trip_, seconds_per_rep);

    result.reps = reps_to_fill(calibration, seconds_per_rep);
    const bool timer = contains(group.timers, team_.rank());
    int resizes_left = kMaxResizes;
    std::uint64_t trial = 0;
    while (trial < options_.max_trials) {
      const NvtxRange range(options_.nvtx, "trial " + std::to_string(trial));
      TrialTiming timing;
      const double trial_seconds_per_rep =
          timed_reps(group, bytes, pattern, result.reps, window, &timing, "trial " + std::to_string(trial + 1));
      // A first trial far from --trial-time re-sizes the repetitions and counts as warm-up. Far
      // under: a warm-up of a few repetitions that met one hiccup (5 ms for a 7 us round trip, seen
      // with ranks sharing cores) sizes trials of 2 repetitions, each as noisy as one message. Far
      // over: the warm-up ran faster than the trials do (a stream of 1.5 KiB messages over shared
      // memory ran 6 times slower in its trials here, so each trial took 60 ms, not 10). Every rank
      // sees the same slowest time, so all decide alike.
      const std::uint64_t resized = reps_to_fill(calibration, trial_seconds_per_rep);
      const bool far_from_the_trial_time =
          resized > kResizeFactor * result.reps || result.reps > kLongTrialFactor * resized;
      if (trial == 0 && resizes_left > 0 && far_from_the_trial_time) {
        --resizes_left;
        result.reps = resized;
        continue;  // the first trial again, with the new repetitions
      }
      if (options_.check_data) check_data(group, bytes, pattern, trial);
      if (timer) {
        result.trial_seconds.push_back(timing.seconds);
        if (!std::isnan(timing.alt_seconds)) result.trial_alt_seconds.push_back(timing.alt_seconds);
        summarize_trials(result);
      }
      const bool enough = trial + 1 >= options_.min_trials;
      const bool another = !enough || (timer && !(result.precision <= options_.precision));
      if (!team_.any(another, expect_collective(bytes, pattern, "the step that decides on another trial"))) break;
      ++trial;
    }
    return result;
  }

  // Rank 0 keeps every timing rank's result of this size in its curve, then reports it.
  template <typename Report>
  void collect(const Group& group, const SizeResult& mine, std::size_t first_curve, Report report) {
    const std::size_t length = packed_length(options_.max_trials);
    const Team::CollectiveWait wait = expect_collective(mine.bytes, options_.pattern, "gathering the results");
    const std::vector<double> all = team_.gather(pack(mine, options_.max_trials), wait);
    on_root([&] {
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
    expect_collective(record_.schedule.back(), options_.pattern, "gathering the link peaks");
    const std::vector<double> rates = team_.gather(std::vector<double>{mine.bytes_per_second});
    const std::vector<std::string> hows = team_.gather(mine.how);
    on_root([&] {
      for (std::size_t i = 0; i < group.timers.size(); ++i) {
        const auto rank = static_cast<std::size_t>(group.timers[i]);
        record_.curves[first_curve + i].link_peak = {rates.at(rank), hows.at(rank)};
      }
    });
  }

  // This sweep's sizes left (seconds_left_in_sweep), then every later sweep as long as this one.
  double estimate_seconds_left(std::size_t index, std::size_t sweeps_after) const {
    const Curve& curve = record_.curves.back();
    const std::vector<std::uint64_t> remaining(record_.schedule.begin() + static_cast<std::ptrdiff_t>(index) + 1,
                                               record_.schedule.end());
    const SweepPlan plan{options_.calibration, options_.min_trials, options_.window, options_.window_given,
                         shortest_round_trip_, [&](std::uint64_t bytes, std::uint64_t window) {
                           return module_.shape(options_.pattern, bytes, window);
                         },
                         probe_};
    const double left = seconds_left_in_sweep(curve.sizes, remaining, plan);
    double spent = 0;
    for (const SizeResult& size : curve.sizes) spent += size.wall_seconds;
    return left + static_cast<double>(sweeps_after) * (spent + left);
  }

  Module& module_;
  RunRecord& record_;
  const RunOptions& options_;
  const Team& team_;
  std::optional<DriftingClock> drifting_;  // --test-clock-drift
  const Clock& clock_;
  std::vector<Reporter*> reporters_;
  RunGuard& guard_;
  std::mutex& record_lock_;
  std::vector<Group> groups_;
  std::vector<std::string> hosts_;  // every rank's, on every rank (the record has them on rank 0 only)
  std::string oversubscribed_;      // "8 ranks on 2 cores of one machine", or ""
  std::optional<RollCall> roll_call_;
  Previous previous_;
  double shortest_round_trip_ = kDamaged;  // of this sweep (or matrix step): a pingpong, or a window of one
  Probe probe_;  // of this sweep's large sizes
  Progress progress_;
};

}  // namespace

void run_sweep(const SweepParts& parts) {
  if (parts.team.is_root()) {
    const std::lock_guard<std::mutex> hold(parts.record_lock);
    for (Reporter* reporter : parts.reporters) reporter->begin(parts.record);
  }
  Sweep(parts).run();
}

std::string describe_waits(const RunOptions& options) {
  const std::string code = "; past it the run stops with exit code 3, saying what it waited for";
  if (options.timeout) return "each bounded by " + format_seconds(*options.timeout) + " (--timeout)" + code;
  return "each bounded by " + format_seconds(kBaseWaitSeconds) + " + " + std::to_string(static_cast<int>(kWaitTrials)) +
         " x the time a trial at that size is expected to take (--timeout to fix it)" + code;
}

std::string describe_window(const RunOptions& options, const ModuleInfo& module, const std::vector<Pattern>& patterns) {
  const bool windows = std::any_of(patterns.begin(), patterns.end(), [](Pattern p) { return p != Pattern::pingpong; });
  if (module.layout != Layout::pair || !windows) return {};
  const std::string each = " (transfers_per_rep in the record)";
  if (options.window_given) return std::to_string(options.window) + " messages at every size (--window)" + each;
  return "up to " + std::to_string(options.window) + " messages, enough to last " +
         format_seconds(options.calibration.trial_seconds / 2) +
         " (half a trial) or 50 round trips, whichever is longer, at the previous size's rate; --window fixes it" + each;
}

}  // namespace npgpu
