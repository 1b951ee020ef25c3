#include "npgpu/pairing.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

constexpr const char* kAllowed = "allowed: A:B (two ranks, e.g. 0:1), halves (rank i with i + N/2), all (every pair)";

int parse_rank(const std::string& text, const std::string& whole) {
  const std::optional<int> rank = rank_number(text);
  if (!rank) throw UsageError("--pairs " + whole + ": '" + text + "' is not a rank number; " + kAllowed);
  return *rank;
}

RankPairing one_pair(const std::string& text, int ranks) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw UsageError("--pairs " + text + ": not a pair of ranks; " + kAllowed);
  RankPairing pairing;
  pairing.first = parse_rank(text.substr(0, colon), text);
  pairing.second = parse_rank(text.substr(colon + 1), text);
  for (int rank : {pairing.first, pairing.second})
    if (rank >= ranks)
      throw UsageError("--pairs " + text + ": rank " + std::to_string(rank) + " does not exist in a run of " +
                       std::to_string(ranks) + " ranks (ranks 0 to " + std::to_string(ranks - 1) + ")");
  if (pairing.first == pairing.second)
    throw UsageError("--pairs " + text + ": a pair needs two different ranks");
  return pairing;
}

std::vector<int> shifts(const RankPairing& pairing) {
  std::vector<int> all(static_cast<std::size_t>(pairing.ranks - 1));
  std::iota(all.begin(), all.end(), 1);
  if (pairing.sample == 0) return all;
  std::mt19937_64 draw(pairing.seed);
  std::shuffle(all.begin(), all.end(), draw);
  all.resize(pairing.sample);
  std::sort(all.begin(), all.end());
  return all;
}

// The shift r -> r + shift is gcd(n, shift) cycles of n / gcd ranks. Each rank of a cycle sends to
// the next; every other rank sends in a phase, so nobody sends and receives at once (an odd cycle
// needs a third phase for its last rank).
std::vector<std::vector<int>> shift_phases(int n, int shift) {
  const int cycles = std::gcd(n, shift);
  const int length = n / cycles;
  std::vector<std::vector<int>> phases(length % 2 == 0 ? 2 : 3);
  for (int start = 0; start < cycles; ++start)
    for (int position = 0, rank = start; position < length; ++position, rank = (rank + shift) % n) {
      const bool odd_cycles_last = length % 2 != 0 && position == length - 1;
      phases[odd_cycles_last ? 2 : static_cast<std::size_t>(position % 2)].push_back(rank);
    }
  return phases;
}

}  // namespace

std::optional<int> rank_number(const std::string& text) {
  std::size_t used = 0;
  int rank = -1;
  try {
    rank = std::stoi(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || rank < 0) return std::nullopt;
  return rank;
}

RankPairing parse_rank_pairing(const std::string& text, int ranks, std::uint64_t sample, std::uint64_t seed) {
  RankPairing pairing;
  if (text == "halves") {
    if (ranks % 2 != 0)
      throw UsageError("--pairs halves pairs rank i with rank i + N/2, and this run has " + std::to_string(ranks) +
                       " ranks: start an even number");
    pairing.mode = PairingMode::halves;
  } else if (text == "all") {
    pairing.mode = PairingMode::all;
  } else {
    pairing = one_pair(text.empty() ? "0:1" : text, ranks);
  }
  pairing.ranks = ranks;
  if (sample != 0 && pairing.mode != PairingMode::all)
    throw UsageError("--sample " + std::to_string(sample) + ": applies to --pairs all only");
  if (sample > static_cast<std::uint64_t>(ranks - 1))
    throw UsageError("--sample " + std::to_string(sample) + ": each rank has " + std::to_string(ranks - 1) +
                     " partners in a run of " + std::to_string(ranks) + " ranks; choose 1 to " +
                     std::to_string(ranks - 1));
  pairing.sample = sample;
  pairing.seed = seed;
  return pairing;
}

std::string describe(const RankPairing& pairing) {
  switch (pairing.mode) {
    case PairingMode::one_pair: return std::to_string(pairing.first) + ":" + std::to_string(pairing.second);
    case PairingMode::halves: return "halves";
    case PairingMode::all:
      if (pairing.sample == 0) return "all";
      return "all, sampled " + std::to_string(pairing.sample) + " of " + std::to_string(pairing.ranks - 1) +
             " partners (seed " + std::to_string(pairing.seed) + ")";
  }
  return {};
}

PairSide side_of(const RankPairing& pairing, int rank) {
  switch (pairing.mode) {
    case PairingMode::one_pair:
      return rank == pairing.first ? PairSide::first : rank == pairing.second ? PairSide::second : PairSide::idle;
    case PairingMode::halves: return rank < pairing.ranks / 2 ? PairSide::first : PairSide::second;
    case PairingMode::all: return PairSide::both;
  }
  return PairSide::idle;
}

std::vector<PairStep> pairing_steps(const RankPairing& pairing) {
  const int n = pairing.ranks;
  auto step = [n] {
    PairStep s;
    s.peers.resize(static_cast<std::size_t>(n));
    return s;
  };
  auto pair = [](PairStep& s, int first, int second) {
    s.peers[static_cast<std::size_t>(first)].to = second;
    s.peers[static_cast<std::size_t>(second)].from = first;
    s.timers.push_back(first);
  };
  if (pairing.mode == PairingMode::one_pair) {
    PairStep s = step();
    pair(s, pairing.first, pairing.second);
    return {s};
  }
  if (pairing.mode == PairingMode::halves) {
    std::vector<PairStep> steps(pairing.one_at_a_time ? static_cast<std::size_t>(n / 2) : 1, step());
    for (int rank = 0; rank < n / 2; ++rank) pair(steps[pairing.one_at_a_time ? static_cast<std::size_t>(rank) : 0], rank, rank + n / 2);
    return steps;
  }
  std::vector<PairStep> steps;
  for (int shift : shifts(pairing)) {
    for (const std::vector<int>& senders : shift_phases(n, shift)) {
      PairStep s = step();
      s.shift = shift;
      for (int rank : senders) pair(s, rank, (rank + shift) % n);
      std::sort(s.timers.begin(), s.timers.end());
      steps.push_back(std::move(s));
    }
  }
  return steps;
}

std::vector<int> partners(const RankPairing& pairing, int rank) {
  std::vector<int> found;
  for (const PairStep& step : pairing_steps(pairing))
    for (int peer : {step.peers[static_cast<std::size_t>(rank)].to, step.peers[static_cast<std::size_t>(rank)].from})
      if (peer >= 0) found.push_back(peer);
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

Pattern all_pairs_pattern(std::uint64_t bytes) { return bytes < 64 * KiB ? Pattern::pingpong : Pattern::stream; }

}  // namespace npgpu
