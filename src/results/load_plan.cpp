#include "results/load_plan.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

constexpr std::array<std::pair<LoadPattern, const char*>, 4> kNames{{{LoadPattern::stream, "stream"},
                                                                     {LoadPattern::bidir, "bidir"},
                                                                     {LoadPattern::incast, "incast"},
                                                                     {LoadPattern::alltoall, "alltoall"}}};
constexpr const char* kListAllowed = "allowed: ranks and ranges separated by commas, e.g. 0,1,4,5 or 4-7";

int list_rank(const std::string& text, const std::string& whole, int ranks) {
  const std::optional<int> rank = rank_number(text);
  if (!rank) throw UsageError("--load-ranks " + whole + ": '" + text + "' is not a rank number; " + kListAllowed);
  if (*rank >= ranks)
    throw UsageError("--load-ranks " + whole + ": rank " + std::to_string(*rank) + " does not exist in a run of " +
                     std::to_string(ranks) + " ranks (ranks 0 to " + std::to_string(ranks - 1) + ")");
  return *rank;
}

}  // namespace

LoadPattern parse_load_pattern(const std::string& text) {
  for (const auto& [pattern, name] : kNames)
    if (text == name) return pattern;
  throw UsageError("--load " + text + ": allowed: stream, bidir, incast, alltoall");
}

const char* load_pattern_name(LoadPattern pattern) {
  for (const auto& [each, name] : kNames)
    if (each == pattern) return name;
  return "?";
}

std::vector<int> parse_rank_list(const std::string& text, int ranks) {
  std::vector<int> list;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, end - at);
    const std::size_t dash = item.find('-');
    const int first = list_rank(item.substr(0, dash), text, ranks);
    const int last = dash == std::string::npos ? first : list_rank(item.substr(dash + 1), text, ranks);
    if (last < first) throw UsageError("--load-ranks " + text + ": the range " + item + " runs backwards; " + kListAllowed);
    for (int rank = first; rank <= last; ++rank) list.push_back(rank);
    at = end + 1;
  }
  std::sort(list.begin(), list.end());
  if (const auto twice = std::adjacent_find(list.begin(), list.end()); twice != list.end())
    throw UsageError("--load-ranks " + text + ": rank " + std::to_string(*twice) + " is named twice");
  return list;
}

std::string joined_ranks(const std::vector<int>& ranks, const std::string& separator) {
  std::string text;
  for (int rank : ranks) text += (text.empty() ? "" : separator) + std::to_string(rank);
  return text;
}

std::vector<int> victims_of(const LoadPlan& load) {
  std::vector<int> victims;
  for (int rank = 0; rank < load.run_ranks; ++rank)
    if (!std::binary_search(load.ranks.begin(), load.ranks.end(), rank)) victims.push_back(rank);
  return victims;
}

void check_load(const LoadPlan& load) {
  const std::string pattern = load_pattern_name(load.pattern);
  const auto count = static_cast<int>(load.ranks.size());
  if (load.run_ranks - count < 2)
    throw UsageError("--load-ranks: " + std::to_string(count) + " of the " + std::to_string(load.run_ranks) +
                     " ranks make load, which leaves fewer than the 2 ranks that measure; launch more ranks");
  const bool paired = load.pattern == LoadPattern::stream || load.pattern == LoadPattern::bidir;
  if (load.own_paths) {
    if (!paired)
      throw UsageError("--load " + pattern + ": module " + load.module + " moves within each rank (its own path), so each " +
                       "load rank streams on its own: allowed stream, bidir");
    return;
  }
  if (paired && count % 2 != 0)
    throw UsageError("--load " + pattern + " pairs the load ranks (the first half with the second), and " +
                     std::to_string(count) + " cannot pair up: name an even number in --load-ranks");
  if (count < 2) throw UsageError("--load " + pattern + " needs at least 2 load ranks in --load-ranks");
}

std::string victims_pairs(const std::string& pairs, const LoadPlan& load) {
  const std::size_t colon = pairs.find(':');
  if (colon == std::string::npos) return pairs;
  const RankPairing pair = parse_rank_pairing(pairs, load.run_ranks, 0, 0);
  const std::vector<int> victims = victims_of(load);
  std::string mapped;
  for (int rank : {pair.first, pair.second}) {
    const auto at = std::find(victims.begin(), victims.end(), rank);
    if (at == victims.end())
      throw UsageError("--pairs " + pairs + ": rank " + std::to_string(rank) + " makes load (--load-ranks); the pair " +
                       "must be two of the ranks that measure: " + joined_ranks(victims, ", "));
    mapped += (mapped.empty() ? "" : ":") + std::to_string(at - victims.begin());
  }
  return mapped;
}

Pattern pair_pattern(LoadPattern pattern) {
  return pattern == LoadPattern::bidir || pattern == LoadPattern::alltoall ? Pattern::bidir : Pattern::stream;
}

LoadCycle load_cycle(const LoadPlan& load) {
  const int count = static_cast<int>(load.ranks.size());
  LoadCycle cycle;
  cycle.pattern = pair_pattern(load.pattern);
  if (load.own_paths) {
    cycle.alone = true;
    cycle.rounds.emplace_back(static_cast<std::size_t>(count));
    return cycle;
  }
  const auto pair = [](std::vector<Peers>& round, int first, int second) {
    round[static_cast<std::size_t>(first)].to = second;
    round[static_cast<std::size_t>(second)].from = first;
  };
  switch (load.pattern) {
    case LoadPattern::stream:
    case LoadPattern::bidir: {
      std::vector<Peers>& round = cycle.rounds.emplace_back(static_cast<std::size_t>(count));
      for (int i = 0; i < count / 2; ++i) pair(round, i, i + count / 2);
      break;
    }
    case LoadPattern::incast: {
      std::vector<Peers>& round = cycle.rounds.emplace_back(static_cast<std::size_t>(count));
      for (int sender = 1; sender < count; ++sender) {
        round[static_cast<std::size_t>(sender)].to = 0;
        if (sender == 1) round[0].from = sender;
        else round[0].more_from.push_back(sender);
      }
      break;
    }
    case LoadPattern::alltoall: {
      // The circle method: seat `seats` (the count made even; an odd count's extra seat is a bye),
      // hold the last seat and turn the others one place each round.
      cycle.barrier_between_rounds = true;
      const int seats = count + count % 2, turning = seats - 1;
      for (int r = 0; r < turning; ++r) {
        std::vector<Peers>& round = cycle.rounds.emplace_back(static_cast<std::size_t>(count));
        if (turning < count) pair(round, r, turning);
        for (int k = 1; k < seats / 2; ++k) {
          const int a = (r + k) % turning, b = (r - k + turning) % turning;
          pair(round, std::min(a, b), std::max(a, b));
        }
      }
      break;
    }
  }
  return cycle;
}

int windows_per_cycle(const LoadCycle& cycle) {
  int windows = 0;
  for (const std::vector<Peers>& round : cycle.rounds)
    windows += static_cast<int>(cycle.alone ? round.size()
                                            : std::count_if(round.begin(), round.end(), [](const Peers& peers) { return peers.to >= 0; }));
  return windows;
}

RankPairing load_pairing(const LoadPlan& load) {
  RankPairing pairing;
  const bool halves = load.own_paths || load.pattern == LoadPattern::stream || load.pattern == LoadPattern::bidir;
  pairing.mode = halves ? PairingMode::halves : PairingMode::all;
  pairing.ranks = static_cast<int>(load.ranks.size());
  return pairing;
}

}  // namespace npgpu
