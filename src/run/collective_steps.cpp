#include "run/collective_steps.hpp"

#include <algorithm>
#include <limits>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

constexpr double kDamaged = std::numeric_limits<double>::infinity();  // a time no trial takes

std::string this_host() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(length));
}

template <typename Transfer>
std::optional<std::string> damage_from(Transfer transfer) {
  try {
    transfer();
  } catch (const DataError& error) {
    return error.what();
  }
  return std::nullopt;
}

// The members `rank` moves bytes with in `group` (each names it back); none for per-rank modules.
std::vector<int> partners_in(const Group& group, int rank) {
  std::vector<int> partners;
  if (group.peers.empty()) return partners;
  const Peers& mine = group.peers[static_cast<std::size_t>(rank)];
  for (int peer : {mine.to, mine.from})
    if (peer >= 0 && peer != rank && contains(group.members, peer) && !contains(partners, peer)) partners.push_back(peer);
  return partners;
}

}  // namespace

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

CollectiveSteps::CollectiveSteps(Module& module, const RunOptions& options, const Team& team, const Clock& clock,
                                 RunGuard& guard, std::mutex& record_lock)
    : module_(module), options_(options), team_(team), clock_(clock), guard_(guard), record_lock_(record_lock),
      hosts_(all_gather(team.comm(), this_host())) {
  // With two ranks a step can only wait for the other one; with more, a roll call names whom.
  if (team_.size() > 2) roll_call_.emplace(team_);
}

void CollectiveSteps::select_peers(const Group& group) {
  if (group.peers.empty()) return;
  guard_.expect(wait_bound(0), peers_text(group) + " choosing the step's peers");
  module_.select_peers(group.peers[static_cast<std::size_t>(team_.rank())]);
}

// --timeout, or a bound that grows with the time a trial at this size is expected to take:
// the trial time, or one repetition predicted from the last size when that is longer.
double CollectiveSteps::wait_bound(std::uint64_t bytes) const {
  if (options_.timeout) return *options_.timeout;
  double trial = options_.calibration.trial_seconds;
  if (previous_.bytes > 0)
    trial = std::max(trial, previous_.seconds_per_rep * static_cast<double>(bytes) / static_cast<double>(previous_.bytes));
  return kBaseWaitSeconds + kWaitTrials * trial;
}

// Whom this rank waits for in a step: its peers, by rank and host, or every other rank.
std::string CollectiveSteps::peers_text(const Group& group) const {
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
std::string CollectiveSteps::rank_text(int rank) const {
  return "rank " + std::to_string(rank) + " (" + host_of(rank) + ")";
}

std::string CollectiveSteps::others_text() const {
  return team_.size() == 2 ? rank_text(1 - team_.rank()) : "the other ranks";
}

std::string CollectiveSteps::ranks_text(const std::vector<int>& ranks) const {
  std::string text;
  for (int rank : ranks) text += (text.empty() ? "" : ", ") + rank_text(rank);
  return text;
}

std::string CollectiveSteps::during(std::uint64_t bytes, Pattern pattern) const {
  return ": module " + options_.module + ", pattern " + pattern_name(pattern) + ", size " + format_bytes(bytes);
}

Team::CollectiveWait CollectiveSteps::expect_collective(std::uint64_t bytes, Pattern pattern, const char* step,
                                                        RollCall::Polling polling) {
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

double CollectiveSteps::timed_reps(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t reps,
                                   std::uint64_t window, TrialTiming* kept, const std::string& step, Damage damaged) {
  return slowest_of_members(group, bytes, pattern, step, damaged, [&] {
    const TrialTiming timing = module_.run({pattern, bytes, reps, window, clock_});
    if (kept != nullptr) *kept = timing;
    return timing.seconds / static_cast<double>(reps);
  });
}

std::vector<double> CollectiveSteps::timed_one_by_one(const Group& group, std::uint64_t bytes, Pattern pattern,
                                                      std::uint64_t count, std::uint64_t window, const std::string& step) {
  std::vector<double> seconds;
  slowest_of_members(group, bytes, pattern, step, Damage::fails_the_run, [&] {
    for (std::uint64_t i = 0; i < count; ++i) seconds.push_back(module_.run({pattern, bytes, 1, window, clock_}).seconds);
    return 0.0;
  });
  if (!contains(group.timers, team_.rank())) seconds.clear();
  return seconds;
}

double CollectiveSteps::slowest_of_members(const Group& group, std::uint64_t bytes, Pattern pattern,
                                           const std::string& step, Damage damaged,
                                           const std::function<double()>& timed) {
  team_.barrier(expect_collective(bytes, pattern, "the barrier before a trial"));
  double seconds_per_rep = 0;
  std::optional<std::string> damage;
  const bool member = contains(group.members, team_.rank());
  if (member) {
    guard_.expect(wait_bound(bytes), peers_text(group) + " in a trial" + during(bytes, pattern));
    // The barrier lets ranks go as its last messages reach them, apart by as long as those take to
    // cross; under load, a congested trunk's queue: a pair on one switch whose ranks left 2-6 ms
    // apart counted that in its first repetition (8 B cells inside a switch read 1.3 ms, not 8 us).
    team_.meet(partners_in(group, team_.rank()));
    damage = damage_from([&] { seconds_per_rep = timed(); });
    if (damaged == Damage::ignored) damage.reset();
  }
  const bool timer = contains(group.timers, team_.rank());
  const double mine = damage ? kDamaged : timer ? seconds_per_rep : 0.0;
  const RollCall::Polling polling = member ? RollCall::Polling::busy : RollCall::Polling::sleeping;
  const double slowest = team_.max(mine, expect_collective(bytes, pattern, "the step after a trial", polling));
  if (slowest == kDamaged) fail_together(damage, step, bytes, pattern);
  return slowest;
}

void CollectiveSteps::check_data(const Group& group, std::uint64_t bytes, Pattern pattern, std::uint64_t trial) {
  std::optional<std::string> damage;
  if (contains(group.members, team_.rank())) {
    guard_.expect(wait_bound(bytes), peers_text(group) + " in the data check" + during(bytes, pattern));
    damage = damage_from([&] { module_.check(bytes, bytes * 1000 + trial); });
  }
  if (team_.any(damage.has_value(), expect_collective(bytes, pattern, "the step after the data check")))
    fail_together(damage, "the check after trial " + std::to_string(trial + 1), bytes, pattern);
}

// Every rank stops with the first rank's words for what it found; rank 0 saves the run as failed.
void CollectiveSteps::fail_together(const std::optional<std::string>& damage, const std::string& step,
                                    std::uint64_t bytes, Pattern pattern) {
  const std::optional<std::string> mine =
      damage ? std::optional<std::string>(*damage + " in " + step + during(bytes, pattern)) : std::nullopt;
  throw FailedOnEveryRank(team_.first_error(mine).value_or("corrupt data"));
}

}  // namespace npgpu
